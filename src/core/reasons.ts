/**
 * The decision table: every reason the fence can give, with its HTTP status and
 * the decision it tells the agent to take. The HTTP edge maps reasons through
 * this one table; nothing else picks a status.
 */
import type { ContractIssue } from "./shapes/issue.ts";

/** What the agent should do next. */
export type Verdict = "block" | "retry" | "escalate" | "needs_approval";

/** A stable, machine-readable code for why a call did not apply. */
export type Reason =
  | "malformed_payload"
  | "unsupported_media_type"
  | "unknown_tool"
  | "contract_violation"
  | "tool_not_allowed"
  | "idempotency_key_missing"
  | "idempotency_key_reused"
  | "idempotency_key_in_use"
  | "budget_exhausted"
  | "tool_cap_exhausted"
  | "target_cap_exhausted"
  | "override_loosens_policy"
  | "run_deadline_exceeded"
  | "run_deadline_too_close"
  | "run_halted"
  | "run_cap_exhausted"
  | "approval_required"
  | "approval_denied"
  | "approval_expired"
  | "approval_cap_exhausted"
  | "approval_already_decided"
  | "approval_already_decided_by_you"
  | "approver_not_allowed"
  | "self_approval_not_allowed"
  | "approval_edited"
  | "escalation_already_resolved"
  | "upstream_timeout"
  | "upstream_unavailable"
  | "upstream_authz"
  | "upstream_rejected"
  | "upstream_drifted"
  | "upstream_answer_too_large"
  | "upstream_outcome_unknown"
  | "upstream_not_configured"
  | "upstream_authorization_required"
  | "output_contract_violation"
  | "result_blocked"
  | "unauthenticated"
  | "forbidden_role"
  | "rate_limited"
  | "headers_too_large"
  | "payload_too_large"
  | "invalid_run_id"
  | "not_found"
  | "internal_error"
  | "internal_error_after_upstream";

/** How one reason is answered over HTTP. */
export interface ReasonRule {
  /** HTTP status code of the problem response. */
  status: number;
  /** What the agent should do next. */
  decision: Verdict;
  /** Short human summary, the problem's `title` (RFC 9457 §3.1.4). */
  title: string;
}

export const DECISION_TABLE: Readonly<Record<Reason, ReasonRule>> = {
  malformed_payload: {
    status: 400,
    decision: "block",
    title: "The call is not a single JSON object",
  },
  unsupported_media_type: {
    status: 415,
    decision: "block",
    title: "Send application/json or text/plain",
  },
  unknown_tool: { status: 422, decision: "block", title: "No such tool in the contracts" },
  contract_violation: {
    status: 422,
    decision: "block",
    title: "The arguments break the tool's contract",
  },
  tool_not_allowed: {
    status: 403,
    decision: "block",
    title: "The policy does not allow this tool",
  },
  idempotency_key_missing: {
    status: 400,
    decision: "block",
    title: "A mutation needs an idempotency key",
  },
  idempotency_key_reused: {
    status: 422,
    decision: "block",
    title: "This idempotency key was used for another payload",
  },
  idempotency_key_in_use: {
    status: 409,
    decision: "retry",
    title: "A call with this idempotency key is still running",
  },
  budget_exhausted: {
    status: 403,
    decision: "block",
    title: "The run's side-effect budget is spent",
  },
  tool_cap_exhausted: {
    status: 403,
    decision: "block",
    title: "The run's cap on this tool is spent",
  },
  target_cap_exhausted: {
    status: 403,
    decision: "block",
    title: "This target already had every call of this tool it may have",
  },
  override_loosens_policy: {
    status: 422,
    decision: "block",
    title: "A run's limits may only be tighter than the policy",
  },
  run_deadline_exceeded: { status: 403, decision: "block", title: "The run's deadline has passed" },
  run_deadline_too_close: {
    status: 403,
    decision: "block",
    title: "Too little time is left before the run's deadline for this mutation",
  },
  run_halted: { status: 403, decision: "block", title: "The run was halted" },
  run_cap_exhausted: {
    status: 429,
    decision: "retry",
    title: "Too many runs are open for this key or tenant",
  },
  approval_required: {
    status: 202,
    decision: "needs_approval",
    title: "A person must approve this call first; nothing ran",
  },
  approval_denied: { status: 403, decision: "block", title: "An operator denied this call" },
  approval_expired: {
    status: 403,
    decision: "block",
    title: "The approval for this call expired",
  },
  approval_cap_exhausted: {
    status: 429,
    decision: "retry",
    title: "Too many approvals wait for a person",
  },
  approval_already_decided: {
    status: 409,
    decision: "block",
    title: "This approval was already decided",
  },
  approval_already_decided_by_you: {
    status: 409,
    decision: "block",
    title: "You already approved this; another approver must",
  },
  approver_not_allowed: {
    status: 403,
    decision: "block",
    title: "The approval rule does not let you decide this approval",
  },
  self_approval_not_allowed: {
    status: 403,
    decision: "block",
    title: "The person whose agent proposed a call may not approve it",
  },
  approval_edited: {
    status: 409,
    decision: "block",
    title: "The call was approved with other arguments; propose those",
  },
  escalation_already_resolved: {
    status: 409,
    decision: "block",
    title: "This escalation was already resolved",
  },
  upstream_timeout: { status: 504, decision: "retry", title: "The tool did not answer in time" },
  upstream_unavailable: { status: 502, decision: "retry", title: "The tool is unavailable" },
  upstream_authz: {
    status: 502,
    decision: "escalate",
    title: "The tool refused the fence's credentials",
  },
  upstream_rejected: { status: 502, decision: "escalate", title: "The tool rejected the call" },
  upstream_drifted: {
    status: 409,
    decision: "escalate",
    title: "The tool changed upstream since its contract was pinned",
  },
  upstream_answer_too_large: {
    status: 502,
    decision: "escalate",
    title: "The tool's answer is larger than the fence reads or keeps; it may have acted",
  },
  upstream_outcome_unknown: {
    status: 502,
    decision: "escalate",
    title: "The tool was called and whether it acted is unknown",
  },
  upstream_not_configured: {
    status: 503,
    decision: "escalate",
    title: "The tool's upstream is not configured in this deployment",
  },
  upstream_authorization_required: {
    status: 403,
    decision: "escalate",
    title: "The tool is called as the person, who must connect it first; nothing ran",
  },
  output_contract_violation: {
    status: 502,
    decision: "escalate",
    title: "The tool answered outside its output contract",
  },
  result_blocked: {
    status: 502,
    decision: "escalate",
    title: "A result rule withheld the tool's answer",
  },
  unauthenticated: { status: 401, decision: "block", title: "Missing or unknown credentials" },
  forbidden_role: { status: 403, decision: "block", title: "This key's role may not do that" },
  rate_limited: { status: 429, decision: "retry", title: "Too many requests for this key" },
  headers_too_large: {
    status: 431,
    decision: "block",
    title: "The request headers are too large",
  },
  payload_too_large: { status: 413, decision: "block", title: "The call is too large or too deep" },
  invalid_run_id: {
    status: 400,
    decision: "block",
    title: "Run ids are 1-64 characters of [A-Za-z0-9._:-]",
  },
  not_found: { status: 404, decision: "block", title: "Not found" },
  internal_error: {
    status: 500,
    decision: "retry",
    title: "The fence failed; nothing was applied",
  },
  internal_error_after_upstream: {
    status: 500,
    decision: "escalate",
    title: "The fence failed after calling the tool; whether it acted is unknown",
  },
};

/** One way a value broke its contract, shaped so a model can re-plan. */
export type { ContractIssue };

/** A refusal as data: a reason from the table plus what the agent needs to act. */
export interface Refusal {
  /** The stable reason code. */
  reason: Reason;
  /** Specific, human-readable detail (RFC 9457 `detail`). */
  detail: string;
  /** Contract issues, for `contract_violation` and `output_contract_violation`. */
  issues?: ContractIssue[];
}

export function refuse(reason: Reason, detail: string, issues?: ContractIssue[]): Refusal {
  return issues === undefined ? { reason, detail } : { reason, detail, issues };
}
