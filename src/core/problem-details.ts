/**
 * RFC 9457 problem details of a refusal, from the one decision table: what the HTTP edge
 * answers (src/http/problem.ts) and what a key stores for replay, the ledger's own settlements
 * among them.
 */
import { DECISION_TABLE, type Refusal } from "./reasons.ts";

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
