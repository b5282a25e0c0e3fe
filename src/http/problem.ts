/**
 * RFC 9457 problem details: every refusal rendered through the one decision table.
 */
import { problemBody } from "../core/problem-details.ts";
import { DECISION_TABLE, type Refusal } from "../core/reasons.ts";

export { problemBody, problemDetails } from "../core/problem-details.ts";

/** RFC 9457 §3: problem details are served with their own media type. */
export const PROBLEM_TYPE = "application/problem+json";

/**
 * The one place a refusal becomes an HTTP answer: status and decision come from the
 * decision table, and `extra` adds members such as `call_id` and `budget`.
 */
export function problem(
  refusal: Refusal,
  extra: Record<string, unknown> = {},
  headers: HeadersInit = {},
): Response {
  return new Response(problemBody(refusal, extra), {
    status: DECISION_TABLE[refusal.reason].status,
    headers: { ...Object.fromEntries(new Headers(headers)), "Content-Type": PROBLEM_TYPE },
  });
}
