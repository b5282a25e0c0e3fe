/**
 * The Tasks extension's methods on the 2026-07-28 server (SEP-2663): which pending call becomes
 * a task, and `tasks/get`, `tasks/update` and `tasks/cancel`. The SDK has no runtime for them on
 * this revision, so the fence registers them as custom methods; the SDK's HTTP entry still
 * checks their standard headers (`Mcp-Name` must mirror `params.taskId`) and envelope first.
 */
import type {
  CallToolResult,
  RequestId,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server";
import * as v from "valibot";
import type { ToolContract } from "../core/contract.ts";
import type { InputRelay, UpstreamNotice } from "../execute/mcp.ts";
import type { Continuation, Decision } from "../http/decision.ts";
import { KEY_META, relaysContent } from "./results.ts";
import {
  declaresTasks,
  missingTasksCapability,
  type TaskCall,
  type TaskSeal,
  taskNotFound,
  taskState,
} from "./tasks.ts";

/** The request a call is proposed from when it is not a `tools/call`: a task's poll. */
export interface ProposedVia {
  /** The JSON-RPC method (`tasks/get`), for the call's span. */
  method: string;
  /** The call as the audit keeps it: rebuilt from the task, never the sealed task id. */
  received: string;
}

/**
 * Run a call through the fence. `key` is what the client sent under
 * `_meta["io.toolfence/idempotency-key"]` (the gate checks it), or undefined to derive one;
 * `id` is the JSON-RPC request's, so the audit keeps the bytes sent for this call; `meta`
 * is the request's `_meta` (its `traceparent` and `tracestate` continue the client's trace);
 * `via` names the request when it is a task's poll, not a `tools/call`.
 */
export type ProposeCall = (
  name: string,
  args: unknown,
  key: unknown,
  id: RequestId,
  meta: Record<string, unknown> | undefined,
  via?: ProposedVia,
  during?: DuringCall,
) => Promise<Decision>;

/** What a `tools/call` brings to its run beyond the call: where its upstream's messages go. */
export interface DuringCall {
  /** Where the upstream's progress and log messages go. */
  notify?: (notice: UpstreamNotice) => void;
  /** What the client may be asked for input (2026-07-28). */
  input?: InputRelay;
  /** The admitted call a retry with the client's answers continues. */
  continues?: Continuation;
}

/** What the task methods need of the request's context (src/mcp/server.ts has it all). */
interface TaskContext {
  /** Contracts the caller may use: which tool is a mutation. */
  tools: readonly ToolContract[];
  /** Seals and opens this run's task ids. */
  tasks: TaskSeal;
  /** Run a call through the fence, as the server's context does. */
  propose: ProposeCall;
}

/** What a task method carries: the task's id (and the request's `_meta`). */
const TaskParams = v.looseObject({
  taskId: v.string(),
  _meta: v.optional(v.record(v.string(), v.unknown())),
});

/**
 * The `CreateTaskResult` for a pending call, or null to answer it as before: only for a client
 * that declared the extension on this request, and only for a mutation, whose idempotency key
 * (sent, or derived from the call) makes every poll after the call ran replay its answer. A
 * read has no key, so once run its task could only ask again: it keeps the pending result.
 */
export async function taskOf(
  ctx: TaskContext,
  mcpReq: ServerContext["mcpReq"],
  call: { tool: string; args: unknown; key: unknown },
  pending: Decision,
): Promise<CallToolResult | null> {
  if (!declaresTasks(mcpReq)) return null;
  const contract = ctx.tools.find((t) => t.name === call.tool);
  if (contract?.effect !== "mutate") return null;
  // An undefined key is left out of the sealed text, as JSON.stringify leaves it out.
  const task = await ctx.tasks.create(call, pending);
  // The SDK types a tools/call result without SEP-2663's task handle; on the wire its
  // `resultType: "task"` passes through (tools/call results may carry more than "complete").
  return task as unknown as CallToolResult | null;
}

/** Register the task methods on a 2026-07-28 server whose context can open task ids. */
export function taskHandlers(server: Server, ctx: TaskContext): void {
  const { tasks } = ctx;
  const opened = async (mcpReq: ServerContext["mcpReq"], taskId: string): Promise<TaskCall> => {
    if (!declaresTasks(mcpReq)) throw missingTasksCapability();
    const call = await tasks.open(taskId);
    if (call === null) throw taskNotFound();
    return call;
  };
  // Each poll proposes the call again: the ledger answers pending, runs it once the grant is
  // there, or replays the key's stored answer; a denial or expiry is the call's error result.
  server.setRequestHandler("tasks/get", { params: TaskParams }, async (params, { mcpReq }) => {
    const call = await opened(mcpReq, params.taskId);
    const received = JSON.stringify({
      jsonrpc: "2.0",
      id: mcpReq.id,
      method: "tools/call",
      params: {
        name: call.tool,
        arguments: call.args,
        ...(call.key === undefined ? {} : { _meta: { [KEY_META]: call.key } }),
      },
    });
    const via = { method: "tasks/get", received };
    const d = await ctx.propose(call.tool, call.args, call.key, mcpReq.id, params._meta, via);
    const relay = relaysContent(ctx.tools.find((t) => t.name === call.tool));
    return taskState(params.taskId, call, d, relay);
  });
  // Both only acknowledge a task that opens. The fence asks for no input on a task: an update's
  // responses (the SDK lifts `inputResponses` off the params as it does a retry's) answer keys
  // never issued, and are ignored. Cancelling withdraws no approval: it waits for its
  // operator, who alone decides it.
  for (const method of ["tasks/update", "tasks/cancel"] as const) {
    server.setRequestHandler(method, { params: TaskParams }, async (params, { mcpReq }) => {
      await opened(mcpReq, params.taskId);
      return {};
    });
  }
}
