/**
 * The fence's answers as they travel over HTTP, typed for agents. These mirror the server's
 * published shapes (docs/api.md, `GET /openapi.json`) without importing server code, so the
 * client runs anywhere `fetch` does.
 */

/** Used and limit of one budget counter. */
export interface Counter {
  /** Charged so far. */
  used: number;
  /** The most the run may use. */
  limit: number;
  /** What is left (never negative). */
  left: number;
}

/** The run's side-effect budget, as published in every call's answer. */
export interface Budget {
  /** Mutations applied, one per idempotency key. */
  mutations: Counter;
  /** Calls that reached a paid tool (cache hits are free). */
  paid_calls: Counter;
}

/** What the agent should do after a refusal: the decision table's verdicts. */
export type Verdict = "block" | "retry" | "escalate";

/** One way the arguments broke the contract, shaped so a model can re-plan. */
export interface ContractIssue {
  /** Dotted path to the offending value, `""` for the payload itself. */
  path: string;
  /** What is wrong, in plain words. */
  message: string;
  /** What the contract expects there. */
  expected: string | null;
  /** What was received there. */
  received: string;
}

/** An RFC 9457 problem as the fence answers it, with the decision table's members. */
export interface Problem {
  /** `urn:toolfence:reason:<reason>`. */
  type: string;
  /** Short summary of the reason. */
  title: string;
  /** HTTP status. */
  status: number;
  /** What happened to this call, specifically. */
  detail: string;
  /** What to do next. */
  decision: Verdict;
  /** Stable reason code from the decision table (docs/api.md). */
  reason: string;
  /** Contract issues, for `contract_violation` and `output_contract_violation`. */
  issues?: ContractIssue[];
  /** The call's id in the audit log, when the call reached the fence's pipeline. */
  call_id?: string;
  /** The budget after the decision, when the call reached the run. */
  budget?: Budget;
  /** Which field of a run's limits was refused (`override_loosens_policy`). */
  field?: string;
}

/** A call that ran, was replayed from its idempotency key, or was served from the cache. */
export interface Success<Result> {
  /** `applied` ran now, `replayed` is a finished key's stored answer, `cached` a cache hit. */
  decision: "applied" | "replayed" | "cached";
  /** The tool's output, checked against its output contract. */
  result: Result;
  /** The call's id in the audit log. */
  call_id: string;
  /** The budget after the call. */
  budget: Budget;
  /** The result cache key of a cacheable read. */
  cache_key?: string;
  /** HTTP status (200). */
  status: number;
}

/** A call held for a human's approval (202). */
export interface NeedsApproval {
  /** Held: a human must approve before the call may run. */
  decision: "needs_approval";
  /** Always `approval_required`. */
  reason: "approval_required";
  /** The approval request to wait on, or to show to the operator. */
  approval_id: string;
  /** When the request lapses unanswered (ISO 8601). */
  expires_at: string;
  /** The call's id in the audit log. */
  call_id?: string;
  /** The budget after the decision. */
  budget?: Budget;
  /** Human-readable detail. */
  detail?: string;
  /** HTTP status (202). */
  status: number;
}

/** A refusal: the problem document, discriminated by `decision`. */
export type Refused = Problem;

/** Every answer to a proposed call, discriminated on `decision`. */
export type Decision<Result = unknown> = Success<Result> | Refused | NeedsApproval;

/** A run's status, `GET /v1/runs/{id}`. */
export interface RunStatus {
  /** Run id. */
  run_id: string;
  /** `open`, `halted` (kill switch) or `expired` (deadline passed). */
  status: "open" | "halted" | "expired";
  /** When the run was first seen (ISO 8601). */
  created_at: string;
  /** When the run stops admitting calls. */
  deadline_at: string;
  /** When it was halted, if it was. */
  halted_at: string | null;
  /** Why it was halted, if it was. */
  halt_reason: string | null;
  /** The budget, used and left. */
  budget: Budget;
  /** The run's effective limits. */
  limits: RunLimits;
  /** Calls charged per tool. */
  tool_calls: Record<string, number>;
  /** Audit entries per decision. */
  decisions: Record<string, number>;
}

/** A run's effective limits, in the shape `PUT /v1/runs/{id}` accepts them. */
export interface RunLimits {
  /** Tools the run may call. */
  allowed_tools: string[];
  /** Most mutations the run may apply. */
  max_mutations: number;
  /** Most paid calls the run may make. */
  max_paid_calls: number;
  /** How long after its creation the run admits calls. */
  deadline_ms: number;
  /** Per-tool caps. */
  tools: Record<string, { max_calls_per_run: number }>;
}

/** One entry of a run's audit log. */
export interface AuditEntry {
  /** Position in the run's log, from 1. */
  seq: number;
  /** The call this entry is about. */
  call_id: string;
  /** When it was recorded (ISO 8601). */
  at: string;
  /** Tool name when it could be read. */
  tool: string | null;
  /** The decision recorded (`pending` while the tool runs). */
  decision: string;
  /** Reason code of a refusal. */
  reason: string | null;
  /** Further members as the server records them (see docs/api.md). */
  [member: string]: unknown;
}

/** One page of the audit log. */
export interface AuditPage {
  /** Run id. */
  run_id: string;
  /** Entries, oldest first. */
  entries: AuditEntry[];
  /** The `after` cursor of the next page, or null on the last. */
  next_after: number | null;
}
