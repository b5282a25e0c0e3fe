/**
 * The fence's answer to one call, rendered as an MCP `tools/call` result. The answer is the
 * REST pipeline's, so the decision is the same whichever edge the call came through; only its
 * form changes. Results carry `structuredContent` and a text copy; refusals are tool results
 * with `isError: true` whose text is the problem details and a hint, never
 * `structuredContent` (clients validate it against the output schema even on errors).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";

/** The one vendor key under `_meta` that carries the fence's decision. */
export const FENCE_META = "io.toolfence/fence";

/** The key a client sends under `params._meta` to name a mutation's intent. */
export const KEY_META = "io.toolfence/idempotency-key";

/** A problem+json body, as far as the rendering needs it. */
interface Problem {
  decision: string;
  reason: string;
  detail?: string;
  issues?: { path: string; message: string }[];
  call_id?: string;
  budget?: unknown;
}

/** What the model should do next, per decision and reason, in one line. */
function hintOf(p: Problem, retryAfter: string | null): string {
  if (p.decision === "retry") {
    const when = retryAfter === null ? "shortly" : `after ${retryAfter} s`;
    return `Retry the same call ${when}; a mutation keeps its idempotency key, so it is charged once.`;
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

/** Render the pipeline's answer (a REST response) as a tool result. */
export async function toolResult(response: Response): Promise<CallToolResult> {
  const body = (await response.json()) as Record<string, unknown>;
  const meta = {
    [FENCE_META]: {
      decision: body.decision,
      call_id: body.call_id,
      budget: body.budget,
      cache: response.headers.get("X-Cache"),
      replayed: response.headers.get("Idempotent-Replayed") === "true",
    },
  };
  if (response.status === 202)
    return pendingResult(body, response.headers.get("Retry-After"), meta);
  if (response.status === 200) {
    const result = body.result;
    const text = JSON.stringify(result);
    const structured =
      typeof result === "object" && result !== null && !Array.isArray(result)
        ? { structuredContent: result as Record<string, unknown> }
        : {};
    return { content: [{ type: "text", text }], ...structured, _meta: meta };
  }
  const problem = body as unknown as Problem;
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify(body) },
      { type: "text", text: hintOf(problem, response.headers.get("Retry-After")) },
    ],
    _meta: meta,
  };
}

/**
 * A call that waits for a person: not an error (nothing is wrong with it), so the model is
 * told to wait and propose the same call again, not to re-plan.
 */
function pendingResult(
  body: Record<string, unknown>,
  retryAfter: string | null,
  meta: Record<string, unknown>,
): CallToolResult {
  const approval = {
    status: "pending",
    approval_id: String(body.approval_id),
    rule: String(body.rule),
    expires_at: String(body.expires_at),
    retry_after_s: Number(retryAfter ?? body.retry_after_s ?? 0),
  };
  const text = `Approval pending: a person must approve this call (rule ${approval.rule}, approval ${approval.approval_id}); nothing ran. Call the same tool with the same arguments again after ${approval.retry_after_s} s; the approval expires at ${approval.expires_at}.`;
  return { content: [{ type: "text", text }], structuredContent: { approval }, _meta: meta };
}
