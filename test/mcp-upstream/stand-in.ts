/**
 * An MCP server stand-in behind a service binding (`STAND_IN`): each JSON-RPC request is
 * answered by a test's function, notifications with 202. For outcomes the reference server
 * never produces; the real servers are covered in test/e2e.
 */
import { env } from "cloudflare:workers";
import * as v from "valibot";
import { opsServiceStatus } from "../../demo/contracts/ops_service_status.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { type ExecutionContext, execute } from "../../src/execute/execute.ts";

/** How the stand-in answers one JSON-RPC request. */
export type Answer = (message: { id?: number; method?: string }) => Response;

/** The worker's bindings with `answer` behind `STAND_IN`. */
export function behind(answer: Answer): Env {
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const message = (await new Request(input, init).json()) as { id?: number; method?: string };
    return message.id === undefined ? new Response(null, { status: 202 }) : answer(message);
  };
  return { ...env, STAND_IN: { fetch } } as unknown as Env;
}

/** A JSON-RPC result. */
const rpc = (id: number | undefined, result: unknown) =>
  Response.json({ jsonrpc: "2.0", id, result });

/** A server that initializes, then answers every other request with `toolResult`. */
export const initialized =
  (toolResult: unknown): Answer =>
  (m) =>
    m.method === "initialize"
      ? rpc(m.id, {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "s", version: "1" },
        })
      : rpc(m.id, toolResult);

/** The demo's `ops_service_status`, reached at the stand-in, its output unchecked. */
export const standInContract: ToolContract = {
  ...opsServiceStatus,
  output: v.unknown(),
  upstream: {
    ...(opsServiceStatus.upstream as Extract<ToolContract["upstream"], { kind: "mcp" }>),
    endpoint: { binding: "STAND_IN", path: "/mcp" },
  },
};

/** `standInContract` executed for `{ service: "checkout" }` against `bindings`, with `extra`. */
export function executeBehind(bindings: Env, extra: Partial<ExecutionContext> = {}) {
  return execute(
    standInContract,
    { service: "checkout" },
    { env: bindings, tenant: "t", runId: "r", upstreamKey: null, timeoutMs: 2_000, ...extra },
  );
}
