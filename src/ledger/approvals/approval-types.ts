/** The RunLedger's approval and escalation types, as its RPC methods take and answer them. */

import type { OperatorDecision } from "../../core/approval.ts";
import type { AuditPrincipal } from "../../core/principal.ts";
import type { Refusal } from "../../core/reasons.ts";
import type { Approval } from "../../core/shapes/approval.ts";
import type { Escalation, ResolutionKind } from "../../core/shapes/audit.ts";
import type { Evidence } from "../protocol.ts";

/**
 * An approval as published to operators (`GET /v1/runs/{id}/approvals`), its validated
 * arguments as JSON text: RPC types stay flat.
 */
export type ApprovalView = Omit<Approval, "args" | "edited_args"> & {
  args: string;
  edited_args: string | null;
};

/** An operator acting on an approval or an escalation. */
export interface OperatorAct {
  /** Who: the operator key's id, `development`, or the person's email or subject. */
  actor: string;
  /** Who, as the audit names them: the operator's key or the person signed in. */
  principal?: AuditPrincipal;
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
export type Resolution = ResolutionKind;

/** An escalated call and its resolution (null while open). */
export type EscalationView = Escalation;

/** Which escalations to list. */
export type EscalationFilter = "open" | "resolved" | "all";

/** The answer to resolving an escalation. */
export type ResolveAnswer =
  | { kind: "resolved"; escalation: EscalationView }
  | { kind: "refuse"; refusal: Refusal };

export type { OperatorDecision };
