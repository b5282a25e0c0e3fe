/**
 * An upstream's HTTP status mapped onto the decision table (retry, escalate, or go on).
 */
import { type Refusal, refuse } from "../core/reasons.ts";

/**
 * Turn an upstream's HTTP status into the decision table's answer: transient failures
 * are `retry` (the same key may try again), refusals are `escalate` (a human or a
 * re-plan is needed; retrying the same call cannot help).
 */
export function classifyStatus(status: number, tool: string): Refusal | null {
  if (status >= 200 && status < 300) return null;
  // RFC 9110 §15.5.2/§15.5.4: the upstream refused the fence's credentials.
  if (status === 401 || status === 403) {
    return refuse("upstream_authz", `${tool} refused the call's credentials (HTTP ${status}).`);
  }
  // RFC 6585 §4 (429) and every 5xx: the upstream may succeed later.
  if (status === 429 || status >= 500) {
    return refuse("upstream_unavailable", `${tool} is unavailable (HTTP ${status}); retry later.`);
  }
  return refuse("upstream_rejected", `${tool} rejected the call (HTTP ${status}).`);
}
