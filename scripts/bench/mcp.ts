import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";
import type { Table } from "./table.ts";

/**
 * A fenced call of an MCP tool against direct calls of the same tool on the same server,
 * one at a time (latency, not throughput): the fence's overhead as an agent sees it.
 */
const HEADERS = { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" };

type Call = (i: number) => Promise<void>;

async function timed(n: number, call: Call): Promise<number[]> {
  for (let i = 0; i < Math.min(10, n); i++) await call(-1 - i); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call(i);
    ms.push(performance.now() - start);
  }
  return ms.sort((a, b) => a - b);
}

function at(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function connect(mcpUrl: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  return client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl))).then(() => client);
}

async function fenced(fenceUrl: string, run: string, message: string): Promise<void> {
  const res = await fetch(`${fenceUrl}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ tool: "everything_echo", args: { message } }),
  });
  const body = (await res.json()) as { decision?: string };
  if (body.decision !== "applied" && body.decision !== "cached") {
    throw new Error(`fenced call answered ${res.status} ${JSON.stringify(body)}`);
  }
}

/** Measure `n` sequential echo calls each way. */
export async function benchMcp(fenceUrl: string, mcpUrl: string, n: number): Promise<Table> {
  const session = await connect(mcpUrl);
  const rows: Array<[string, number[]]> = [];
  try {
    rows.push([
      "direct, one MCP session (SDK client in Node)",
      await timed(n, async (i) => {
        await session.callTool({ name: "echo", arguments: { message: `m-${i}` } });
      }),
    ]);
  } finally {
    await session.close();
  }
  rows.push([
    "direct, a new session per call (what the fence does)",
    await timed(n, async (i) => {
      const client = await connect(mcpUrl);
      await client.callTool({ name: "echo", arguments: { message: `m-${i}` } });
      await client.close();
    }),
  ]);
  const tag = crypto.randomUUID().slice(0, 8);
  rows.push([
    "fenced, cache miss (each message new)",
    await timed(n, (i) =>
      fenced(fenceUrl, `bench-mcp-${tag}-${Math.floor((i + 20) / 500)}`, `miss-${tag}-${i}`),
    ),
  ]);
  rows.push([
    "fenced, cache hit (same message)",
    await timed(n, () => fenced(fenceUrl, `bench-mcp-${tag}-hit`, "hit")),
  ]);
  const base = at(rows[0]?.[1] ?? [], 0.5);
  return {
    title: "MCP upstream: a fenced call against a direct call of the same tool",
    note:
      `${n} sequential calls of \`echo\` on @modelcontextprotocol/server-everything (streamable HTTP, loopback) each way, ` +
      "after 10 warm-up calls. Fenced = POST /v1/runs/{run}/calls of `everything_echo` to `wrangler dev` on loopback: " +
      "authentication, gate, ledger, cache, then the fence's MCP client (initialize, initialized, tools/call, close).",
    head: ["path", "p50 ms", "p95 ms", "mean ms", "p50 vs direct session"],
    rows: rows.map(([name, ms]) => [
      name,
      at(ms, 0.5).toFixed(2),
      at(ms, 0.95).toFixed(2),
      (ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2),
      `${(at(ms, 0.5) / base).toFixed(2)}x`,
    ]),
  };
}
