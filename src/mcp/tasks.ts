/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, on 2026-07-28) for a call
 * waiting for a person: a client that declares the extension on its `tools/call` gets a task
 * handle instead of the pending result, and polls `tasks/get`. The fence keeps no task: the
 * task id is the call itself, sealed (AES-256-GCM, bound to the tenant and run) under a key
 * derived from the deployment's `CONSOLE_SECRET`. Each `tasks/get` opens it and proposes the
 * same call again through the one pipeline, so the ledger decides as for any retry: the grant
 * is single use, bound to the payload and the policy version, and the call's idempotency key
 * replays its stored answer on every later poll. Nothing in the id is trusted beyond what that
 * proposal checks again; a forged, altered or other run's id does not open, and is not found.
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { type SealingContext, seal, unseal } from "../core/sealed.ts";
import type { Decision } from "../http/decision.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { clientCapabilitiesOf } from "./approval-input.ts";
import { pendingApproval, toolResult } from "./results.ts";

/** The extension's identifier, in capabilities and in the client's per-request `_meta`. */
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Every task id starts so; the rest is base64url of the nonce and the sealed call. */
const PREFIX = "tft_";

/**
 * The longest task id handed out. The client echoes it in the `Mcp-Name` header of every poll
 * (SEP-2663, Streamable HTTP), so a call whose arguments would make it longer is answered with
 * the ordinary pending result instead.
 */
const MAX_TASK_ID_CHARS = 4096;

/** Sets the sealing key apart from the other uses of the same secret. */
const KEY_LABEL = "toolfence mcp task id v1\n";

/** The call a task id holds: what `tools/call` sent, and the approval it waits on. */
export interface TaskCall {
  /** The tool's name. */
  tool: string;
  /** The arguments as the client sent them (the gate validates them again on each poll). */
  args: unknown;
  /** What the client sent under `_meta["io.toolfence/idempotency-key"]`, if anything. */
  key?: unknown;
  /** The approval the call waits on, as the first answer named it. */
  approval: string;
  /** When the task was created (ms since the epoch). */
  created: number;
  /** When the approval expires (ISO 8601), as the first answer named it. */
  expires: string;
}

/**
 * Whether this request's client declared the Tasks extension (2026-07-28 per-request client
 * capabilities). A server must not answer a task to a client that did not, on that request.
 */
export function declaresTasks(mcpReq: ServerContext["mcpReq"]): boolean {
  const extensions = clientCapabilitiesOf(mcpReq)?.extensions as
    | Record<string, unknown>
    | undefined;
  const declared = extensions?.[TASKS_EXTENSION];
  return typeof declared === "object" && declared !== null;
}

/** How a task id of this run is sealed: bound to its run, so it opens for no other. */
function sealingOf(secret: string, ref: RunRef): SealingContext {
  return { label: KEY_LABEL, secret, boundTo: JSON.stringify([ref.tenant, ref.runId]) };
}

/** Seal a call into a task id of this run, or null when the id would be too long. */
export async function sealTask(
  secret: string,
  ref: RunRef,
  call: TaskCall,
): Promise<string | null> {
  const id = PREFIX + (await seal(sealingOf(secret, ref), call));
  return id.length <= MAX_TASK_ID_CHARS ? id : null;
}

/** Open a task id of this run: the call it holds, or null when it is not one the fence sealed. */
export async function openTask(secret: string, ref: RunRef, id: unknown): Promise<TaskCall | null> {
  if (typeof id !== "string" || !id.startsWith(PREFIX) || id.length > MAX_TASK_ID_CHARS) {
    return null;
  }
  // Altered, forged, or sealed for another run: it does not open.
  return (await unseal(sealingOf(secret, ref), id.slice(PREFIX.length))) as TaskCall | null;
}

/** The capability a 2026-07-28 server declares under `extensions` (SEP-2663: empty). */
export const TASK_CAPABILITY = { [TASKS_EXTENSION]: {} };

/** A run's task ids: created from a pending call, opened from a poll. */
export interface TaskSeal {
  /** The `CreateTaskResult` of a pending call, or null when its id would be too long. */
  create: (
    call: Omit<TaskCall, "approval" | "created" | "expires">,
    pending: Decision,
  ) => Promise<Record<string, unknown> | null>;
  /** The call a task id of this run holds, or null when it does not open. */
  open: (id: unknown) => Promise<TaskCall | null>;
}

/** The task ids of one run, sealed under `secret`. */
export function taskSeal(secret: string, ref: RunRef): TaskSeal {
  return {
    create: async (call, pending) => {
      const { approval_id, expires_at } = pendingApproval(pending);
      const sealed: TaskCall = {
        ...call,
        approval: approval_id,
        created: Date.now(),
        expires: expires_at,
      };
      const taskId = await sealTask(secret, ref, sealed);
      if (taskId === null) return null;
      return { resultType: "task", ...taskState(taskId, sealed, pending) };
    },
    open: (id) => openTask(secret, ref, id),
  };
}

/**
 * The task as a poll sees it, from the decision on its call proposed again: still pending is
 * `working`; anything else is `completed` with the call's tool result, a refusal included (an
 * `isError` result is a tool error, never a `failed` task: SEP-2663, Task Execution Errors).
 */
export function taskState(
  taskId: string,
  call: TaskCall,
  d: Decision,
  relay = false,
): Record<string, unknown> {
  const now = Date.now();
  const expiresAt = Date.parse(call.expires);
  const common = {
    taskId,
    createdAt: new Date(call.created).toISOString(),
    lastUpdatedAt: new Date(now).toISOString(),
    ttlMs: Number.isFinite(expiresAt) ? Math.max(0, expiresAt - call.created) : null,
  };
  if (d.status !== 202) {
    // The result as the tools/call would have answered it on 2026-07-28: discriminated too.
    return {
      ...common,
      status: "completed",
      result: { resultType: "complete", ...toolResult(d, relay) },
    };
  }
  const approval = pendingApproval(d);
  const statusMessage = `Waiting for a person to approve this call: ${call.tool} (rule ${approval.rule}, approval ${approval.approval_id}); nothing has run yet. The approval expires at ${approval.expires_at}.`;
  const pollIntervalMs = approval.retry_after_s * 1000;
  return { ...common, status: "working", statusMessage, pollIntervalMs };
}

/** The protocol's answer to a task request from a client that did not declare the extension. */
export function missingTasksCapability(): ProtocolError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: TASK_CAPABILITY } },
    "Missing required client capability",
  );
}

/** The protocol's answer to a task id that does not open: invalid params (SEP-2663). */
export function taskNotFound(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Failed to retrieve task: Task not found",
  );
}
