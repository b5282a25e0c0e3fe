/**
 * The approval half of the ledger model: what DESIGN.md says a run does with a call a policy
 * rule sends to a person, written out on its own (it never calls src/core/approval.ts). In the
 * model an urgent mutation (payload `u`) is the one the shipped policy's `urgent_ticket` asks about.
 */
import type { Expected, LedgerModel, ModelProposal } from "./ledger-model.ts";

/** One approval as the model holds it, in the order the run opened them. */
export interface ModelApproval {
  /** The payload it binds. */
  fingerprint: string;
  /** The idempotency key it binds: a grant admits only the key the approver was shown. */
  key: string | null;
  /** Where it stands. */
  status: "pending" | "approved" | "denied" | "consumed" | "expired";
  /** Whether its time ran out (a pending or approved one then reads as expired). */
  lapsed: boolean;
  /** The one call that used it, once consumed. */
  consumer: string | null;
  /** The call that opened it: the alarm's expiry entry is under its id. */
  askedBy: string;
  /** Expired by the run's alarm, and its call not yet told so. */
  unreported: boolean;
}

/** The call id the model gives an operator's audit entry (the real one is random). */
export const OPERATOR = "operator";

/** Whether a proposal is one a rule asks a person about. */
export function asksPerson(p: ModelProposal): boolean {
  return p.mutates && p.known === null && p.fingerprint === "fp-u";
}

/**
 * A new intent a rule asks about: null when an approved grant for exactly this payload and key
 * lets it through (the grant is then spent), else what the ledger answers instead.
 */
export function approvalInModel(m: LedgerModel, p: ModelProposal): Expected | null {
  const latest = [...m.approvals]
    .reverse()
    .find((a) => a.fingerprint === p.fingerprint && a.key === p.key);
  const told = latest?.status === "expired" && !latest.unreported;
  if (latest === undefined || latest.status === "consumed" || told) {
    m.approvals.push({
      fingerprint: p.fingerprint,
      key: p.key,
      status: "pending",
      lapsed: false,
      consumer: null,
      askedBy: p.callId,
      unreported: false,
    });
    m.audit.push({ callId: p.callId, decision: "approval_requested", reason: "approval_required" });
    return { kind: "approval" };
  }
  if (latest.status === "denied") return refusedHere(m, p.callId, "approval_denied");
  if (latest.lapsed || latest.status === "expired") {
    latest.status = "expired";
    latest.unreported = false;
    return refusedHere(m, p.callId, "approval_expired");
  }
  if (latest.status === "pending") {
    m.audit.push({ callId: p.callId, decision: "needs_approval", reason: "approval_required" });
    return { kind: "approval" };
  }
  latest.status = "consumed";
  latest.consumer = p.callId;
  return null;
}

function refusedHere(m: LedgerModel, callId: string, reason: string): Expected {
  m.audit.push({ callId, decision: "block", reason });
  return { kind: "refuse", reason };
}

/** An operator decides the `index`th approval: what the ledger must answer. */
export function decideInModel(
  m: LedgerModel,
  index: number,
  decision: "approve" | "deny",
): { kind: "decided" } | { kind: "refuse"; reason: string } {
  const a = m.approvals[index];
  if (a === undefined) throw new Error("no such approval");
  if (a.status !== "pending" && a.status !== "expired") {
    return { kind: "refuse", reason: "approval_already_decided" };
  }
  if (a.lapsed || a.status === "expired") return { kind: "refuse", reason: "approval_expired" };
  a.status = decision === "approve" ? "approved" : "denied";
  // An approval restarts the clock as the grant's own.
  a.lapsed = false;
  m.audit.push({ callId: OPERATOR, decision: a.status, reason: null });
  return { kind: "decided" };
}

/**
 * The run's alarm rings: each pending approval past its deadline expires, a denial under the
 * call that asked, which its next proposal is told of.
 */
export function ringInModel(m: LedgerModel): void {
  for (const a of m.approvals) {
    if (a.status !== "pending" || !a.lapsed) continue;
    a.status = "expired";
    a.unreported = true;
    m.audit.push({ callId: a.askedBy, decision: "block", reason: "approval_expired" });
  }
}

/** The statuses the run publishes for its approvals. */
export function approvalStatuses(m: LedgerModel): string[] {
  return m.approvals.map((a) =>
    a.lapsed && (a.status === "pending" || a.status === "approved") ? "expired" : a.status,
  );
}
