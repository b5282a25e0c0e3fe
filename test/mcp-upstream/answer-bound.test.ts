import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { opsServiceStatus } from "../../contracts/ops_service_status.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { execute } from "../../src/execute/execute.ts";

// An MCP server behind a service binding whose tool result is as large as a test asks.
type Answer = (message: { id?: number; method?: string }) => Response;

function behind(answer: Answer): Env {
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const message = (await new Request(input, init).json()) as { id?: number; method?: string };
    return message.id === undefined ? new Response(null, { status: 202 }) : answer(message);
  };
  return { ...env, STAND_IN: { fetch } } as unknown as Env;
}

const rpc = (id: number | undefined, result: unknown) =>
  Response.json({ jsonrpc: "2.0", id, result });

const answering =
  (text: string): Answer =>
  (m) =>
    m.method === "initialize"
      ? rpc(m.id, {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "s", version: "1" },
        })
      : rpc(m.id, { content: [{ type: "text", text }] });

/** The same answer as an SSE stream, which the SDK reads event by event. */
const streaming =
  (text: string): Answer =>
  (m) => {
    if (m.method === "initialize") return answering(text)(m);
    const event = JSON.stringify({
      jsonrpc: "2.0",
      id: m.id,
      result: { content: [{ type: "text", text }] },
    });
    return new Response(`event: message\ndata: ${event}\n\n`, {
      headers: { "Content-Type": "text/event-stream" },
    });
  };

const contract: ToolContract = {
  ...opsServiceStatus,
  output: v.unknown(),
  upstream: {
    ...(opsServiceStatus.upstream as Extract<ToolContract["upstream"], { kind: "mcp" }>),
    endpoint: { binding: "STAND_IN", path: "/mcp" },
  },
};

function run(bindings: Env, answerLimit?: number) {
  return execute(
    contract,
    { service: "checkout" },
    { env: bindings, tenant: "t", runId: "r", upstreamKey: null, timeoutMs: 20_000, answerLimit },
  );
}

// The first call loads the MCP client SDK, which takes seconds on a busy machine.
describe("an MCP tool result past the byte bound", { timeout: 30_000 }, () => {
  it("is refused as upstream_answer_too_large (escalate), not read whole", async () => {
    const out = await run(behind(answering("x".repeat(3 * 1_048_576))));
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_answer_too_large" } });
    expect(out.ok ? "" : out.refusal.detail).toMatch(/more than 1048576 bytes/);
  });

  it("is refused the same way when it streams as server-sent events", async () => {
    const out = await run(behind(streaming("x".repeat(64 * 1024))), 16 * 1024);
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_answer_too_large" } });
  });

  it("is read in full within the bound", async () => {
    const out = await run(behind(answering("x".repeat(64 * 1024))), 1_048_576);
    expect(out).toMatchObject({ ok: true });
  });
});
