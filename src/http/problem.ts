import { DECISION_TABLE, type Refusal } from "../core/reasons.ts";

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

/** The problem+json body of a refusal, as stored for replay. */
export function problemBody(refusal: Refusal, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(problemDetails(refusal, extra));
}

/** The problem details of a refusal (RFC 9457 members plus the fence's own). */
export function problemDetails(
  refusal: Refusal,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const rule = DECISION_TABLE[refusal.reason];
  return {
    // RFC 9457 §3.1.1: a URI that identifies the problem type.
    type: `urn:toolfence:reason:${refusal.reason}`,
    title: rule.title,
    status: rule.status,
    detail: refusal.detail,
    decision: rule.decision,
    reason: refusal.reason,
    ...(refusal.issues === undefined ? {} : { issues: refusal.issues }),
    ...extra,
  };
}
