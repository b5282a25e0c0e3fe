/**
 * One MCP server instance per request (the endpoint is stateless; the run's state is its
 * RunLedger). It answers `tools/list` from the caller's contracts and hands every
 * `tools/call` to the fence's one pipeline as a proposal of form `mcp`.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  Server,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import type { ToolContract } from "../core/contract.ts";
import type { Unavailable } from "../execute/configured.ts";
import type { Decision } from "../http/decision.ts";
import { approvalInput, declaresUrlElicitation, pageRefused } from "./approval-input.ts";
import { KEY_META, toolResult } from "./results.ts";
import { mcpTools } from "./tools.ts";

/** Where `tools/list` names the tools it leaves out, with what their upstream lacks. */
export const UNAVAILABLE_META = "io.toolfence/unavailable";

/** What a server instance needs of the request it serves. */
export interface McpCallContext {
  /** Contracts the caller may use (policy and key subset) whose upstream is configured. */
  tools: readonly ToolContract[];
  /** Contracts the caller may use that are left out: their upstream is not configured. */
  unavailable: readonly Unavailable[];
  /** Whether a policy rule may send calls of this tool to a person. */
  approvable: (name: string) => boolean;
  /** Whether a tool of this name exists at all (in any contract). */
  exists: (name: string) => boolean;
  /**
   * Run a call through the fence. `key` is what the client sent under
   * `_meta["io.toolfence/idempotency-key"]` (the gate checks it), or undefined to derive one;
   * `id` is the JSON-RPC request's, so the audit keeps the bytes sent for this call; `meta`
   * is the request's `_meta` (its `traceparent` and `tracestate` continue the client's trace).
   */
  propose: (
    name: string,
    args: unknown,
    key: unknown,
    id: RequestId,
    meta: Record<string, unknown> | undefined,
  ) => Promise<Decision>;
  /** The absolute URL of the console page where a person decides approval `id` of this run. */
  approvalPage: (id: string) => string;
}

/** Which protocol era a server instance serves: only 2026-07-28 has input-required results. */
export type McpEra = "2025" | "2026-07-28";

const INFO = { name: "toolfence", version: "1.0.0" };

const INSTRUCTIONS =
  "Every tool call goes through toolfence: arguments are checked against the tool's contract, mutations are applied once per intent, and the run has a budget and a deadline. A refused call comes back as an error result with the reason and how to re-plan; a call that waits for a person's approval comes back as a pending result saying when to call again.";

/** A fresh low-level server bound to one request's context. */
export function fenceServer(ctx: McpCallContext, era: McpEra): Server {
  const server = new Server(INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    // Interprets JSON Schema, never compiles it: workerd forbids eval and new Function.
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  server.setRequestHandler("tools/list", () => ({
    tools: mcpTools(ctx.tools, ctx.approvable),
    // Tools left out, so a client can tell "not configured here" from "does not exist".
    ...(ctx.unavailable.length === 0 ? {} : { _meta: { [UNAVAILABLE_META]: ctx.unavailable } }),
  }));
  server.setRequestHandler("tools/call", async (request, { mcpReq }) => {
    const { name, arguments: args, _meta } = request.params;
    const answer = await ctx.propose(name, args ?? {}, _meta?.[KEY_META], mcpReq.id, _meta);
    // The call is audited like any other; a name no contract has is the protocol's error.
    if (!ctx.exists(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    // A host that shows URL elicitations lets its person decide on the approval's page.
    const asksHost = era === "2026-07-28" && declaresUrlElicitation(mcpReq) && !pageRefused(mcpReq);
    if (answer.status === 202 && asksHost) return approvalInput(answer, name, ctx.approvalPage);
    return toolResult(answer);
  });
  return server;
}
