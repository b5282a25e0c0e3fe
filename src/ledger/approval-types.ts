/** The RunLedger's approval and escalation types, as its RPC methods take and answer them. */

import type { ApprovalStatus, OperatorDecision } from "../core/approval.ts";
import type { Refusal } from "../core/reasons.ts";
import type { AuditEntry, Evidence } from "./protocol.ts";

/** An approval as published to operators (`GET /v1/runs/{id}/approvals`). */
export interface ApprovalView {
  /** Its id. */
  approval_id: string;
  /** The run it belongs to. */
  run_id: string;
  /** The tool the call would run. */
  tool: string;
  /** The policy rule that asked. */
  rule: string;
  /** Where it stands. */
  status: ApprovalStatus;
  /** The validated arguments the grant is bound to, as JSON text (RPC types stay flat). */
  args: string;
  /**
   * SHA-256 of the canonical call (RFC 8785), sensitive arguments in their redacted form: the
   * grant admits only this payload.
   */
  fingerprint: string;
  /** The policy version the grant is bound to. */
  policy_version: string;
  /** The mutation's idempotency key, when it had one: the grant admits only this key. */
  idempotency_key: string | null;
  /** When a call first asked. */
  requested_at: string;
  /** When it stops admitting the call (the wait for an operator, then the grant's own). */
  expires_at: string;
  /** When an operator decided it. */
  decided_at: string | null;
  /** Who decided it: the operator key's id, or `development`. */
  decided_by: string | null;
  /** The operator's note. */
  note: string | null;
  /** The call that used the grant, once consumed. */
  consumed_by_call: string | null;
}

/** What the agent is told while a call waits for a person. */
export interface ApprovalTicket {
  /** The approval's id. */
  approval_id: string;
  /** The rule that asked. */
  rule: string;
  /** When a call first asked (ISO 8601). */
  requested_at: string;
  /** When the approval expires unless decided (ISO 8601). */
  expires_at: string;
  /** Whether this call opened the approval (false: it was already waiting). */
  created: boolean;
  /** The validated arguments as JSON text, for the notification. */
  args: string;
}

/** An operator acting on an approval or an escalation. */
export interface OperatorAct {
  /** Who: the operator key's id, or `development`. */
  actor: string;
  /** Why, in the operator's words (may be empty). */
  note: string;
  /** The request as received, for the audit. */
  evidence: Evidence;
}

/** The answer to an operator's decision. */
export type DecideAnswer =
  | { kind: "decided"; approval: ApprovalView }
  | { kind: "refuse"; refusal: Refusal };

/** How an operator closes an escalation. */
export type Resolution = "retry_allowed" | "closed";

/** An escalation's resolution, once an operator gave one. */
export interface ResolutionView {
  /** `retry_allowed` (the same key may run again, once) or `closed` (final). */
  resolution: Resolution;
  /** The operator's note. */
  note: string | null;
  /** Who resolved it. */
  actor: string;
  /** When. */
  resolved_at: string;
}

/** An escalated call and its resolution, if any. */
export interface EscalationView extends AuditEntry {
  /** Null while open. */
  resolution: ResolutionView | null;
}

/** Which escalations to list. */
export type EscalationFilter = "open" | "resolved" | "all";

/** The answer to resolving an escalation. */
export type ResolveAnswer =
  | { kind: "resolved"; escalation: EscalationView }
  | { kind: "refuse"; refusal: Refusal };

export type { OperatorDecision };
