/**
 * The reference MCP server (`@modelcontextprotocol/server-everything`, streamable HTTP) as a
 * child process on a free loopback port: the real upstream of the e2e tests and the bench.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "./dev-server.ts";

/** A running reference server. */
export interface McpServerProcess {
  /** Its MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Its port. */
  port: number;
  /** Its process id. */
  pid: number;
  /** Stop it; resolves once it has exited. */
  stop: () => Promise<void>;
}

async function waitListening(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null)
      throw new Error(`mcp-server-everything exited with ${child.exitCode}`);
    try {
      // Any HTTP answer means it listens; a GET without a session is refused with 4xx.
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`mcp-server-everything did not listen on ${url} within ${timeoutMs} ms`);
}

/** Start the reference server on `port` (a free one if not given) and wait until it listens. */
export async function startEverything(port?: number): Promise<McpServerProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn("node_modules/.bin/mcp-server-everything", ["streamableHttp"], {
    stdio: "ignore",
    env: { ...process.env, PORT: String(chosen) },
  });
  const url = `http://127.0.0.1:${chosen}/mcp`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  try {
    await waitListening(url, child, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, port: chosen, pid: child.pid ?? 0, stop };
}
