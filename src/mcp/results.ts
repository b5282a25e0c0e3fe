/**
 * The fence's decision on one call, rendered as an MCP `tools/call` result. The decision comes
 * from the one pipeline, so it is the same whichever edge the call came through; only its form
 * changes. Results carry `structuredContent` and a text copy; refusals are tool results
 * with `isError: true` whose text is the problem details and a hint, never
 * `structuredContent` (clients validate it against the output schema even on errors).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolContract } from "../core/contract.ts";
import type { Problem as ProblemDetails } from "../core/shapes/decision.ts";
import type { Decision } from "../http/decision.ts";

/** The one vendor key under `_meta` that carries the fence's decision. */
export const FENCE_META = "io.toolfence/fence";

/** The key a client sends under `params._meta` to name a mutation's intent. */
export const KEY_META = "io.toolfence/idempotency-key";

/** Problem details, as far as the hint needs them. */
type Problem = Pick<ProblemDetails, "decision" | "reason" | "issues">;

/** What the model should do next, per decision and reason, in one line. */
function hintOf(p: Problem): string {
  if (p.reason === "idempotency_key_in_use") {
    return "Retry the same call in a few seconds, once the call running with this key has settled; it is charged once.";
  }
  if (p.decision === "retry") {
    return "Retry the same call in a few seconds; a mutation keeps its idempotency key, so it counts as one mutation.";
  }
  if (p.reason === "upstream_authorization_required") {
    return "Ask the person who made the call to open connect_url and connect the upstream; then make the same call again.";
  }
  if (p.decision === "escalate") {
    return "Do not retry: hand this call to a human, or re-plan without it.";
  }
  if (p.reason === "contract_violation") {
    const where = (p.issues ?? [])
      .map((i) => `${i.path || "(arguments)"}: ${i.message}`)
      .join("; ");
    return `Fix the arguments and call again: ${where}`;
  }
  return "Do not retry this call as it is: re-plan within the run's limits.";
}

/**
 * Whether a tool's results are relayed as the upstream's own tool result: a tool of an MCP
 * server answers `{ content, structuredContent? }` (its output contract), which the client gets
 * as it was sent, blocks and structured content unchanged (after the tool's result rules, which
 * `_meta` marks), instead of a JSON rendering of it.
 */
export function relaysContent(contract: ToolContract | undefined): boolean {
  return contract?.upstream.kind === "mcp";
}

/** The upstream's tool result inside a relayed tool's answer, or null when it has no content list. */
function relayed(result: unknown): Pick<CallToolResult, "content" | "structuredContent"> | null {
  if (typeof result !== "object" || result === null) return null;
  const { content, structuredContent } = result as Record<string, unknown>;
  if (!Array.isArray(content)) return null;
  const structured =
    typeof structuredContent === "object" && structuredContent !== null
      ? { structuredContent: structuredContent as Record<string, unknown> }
      : {};
  return { content: content as CallToolResult["content"], ...structured };
}

/**
 * Render the pipeline's decision as a tool result; `relay` (a tool `relaysContent`) hands on
 * the upstream's result as it is.
 */
export function toolResult(d: Decision, relay = false): CallToolResult {
  const { body } = d;
  const meta = {
    [FENCE_META]: {
      decision: body.decision,
      call_id: body.call_id,
      budget: body.budget,
      cache: d.cache,
      replayed: d.replayed,
      ...(body.guard === undefined ? {} : { guard: body.guard }),
    },
  };
  if (d.status === 202) return pendingResult(pendingApproval(d), meta);
  if (d.status === 200) {
    const result = body.result;
    const upstream = relay ? relayed(result) : null;
    if (upstream !== null) return { ...upstream, _meta: meta };
    const structured =
      typeof result === "object" && result !== null && !Array.isArray(result)
        ? { structuredContent: result as Record<string, unknown> }
        : {};
    const text = JSON.stringify(result);
    return { content: [{ type: "text", text }], ...structured, _meta: meta };
  }
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify(body) },
      { type: "text", text: hintOf(body as unknown as Problem) },
    ],
    _meta: meta,
  };
}

/** The approval a pending call (202) waits on, as its answers name it. */
export interface PendingApproval {
  /** Always `pending`: nothing has been decided yet. */
  status: "pending";
  /** The approval's id, which the console's page for it names. */
  approval_id: string;
  /** The policy rule that sent the call to a person. */
  rule: string;
  /** When the approval expires (ISO 8601). */
  expires_at: string;
  /** Seconds to wait before proposing the same call again. */
  retry_after_s: number;
}

/** The approval a pending decision (202) waits on. */
export function pendingApproval(d: Decision): PendingApproval {
  const { body } = d;
  return {
    status: "pending",
    approval_id: String(body.approval_id),
    rule: String(body.rule),
    expires_at: String(body.expires_at),
    retry_after_s: d.retryAfterS ?? Number(body.retry_after_s ?? 0),
  };
}

/**
 * A call that waits for a person: not an error (nothing is wrong with it), so the model is
 * told to wait and propose the same call again, not to re-plan.
 */
function pendingResult(approval: PendingApproval, meta: Record<string, unknown>): CallToolResult {
  const text = `Approval pending: a person must approve this call (rule ${approval.rule}, approval ${approval.approval_id}); nothing ran. Call the same tool with the same arguments again after ${approval.retry_after_s} s; the approval expires at ${approval.expires_at}.`;
  return { content: [{ type: "text", text }], structuredContent: { approval }, _meta: meta };
}
