/**
 * The approval half of a proposal, inside the RunLedger's admitting transaction: when a policy
 * rule asks about the call, the latest approval for its tool, payload and idempotency key
 * decides (core/approval.ts) whether it goes on (an approved grant, spent here), waits for a
 * person (202), or is refused.
 */
import { askingRule, grantFor, ruleWaitMs } from "../../core/approval.ts";
import { approvalRulesOf } from "../../core/policy.ts";
import { DECISION_TABLE, refuse } from "../../core/reasons.ts";
import type { AuditDraft } from "../audit/audit-draft.ts";
import type { LedgerAnswer, Rejection } from "../protocol.ts";
import type { LedgerScope } from "../run/operator.ts";
import { NO_BODY, rejectionDraft } from "../run/refusal-keep.ts";
import { budgetView, type RunRow } from "../views.ts";
import {
  consumeApproval,
  expireApproval,
  latestApproval,
  openApproval,
  pendingApprovals,
} from "./approvals.ts";

/**
 * Take back pending approval `id`, which the tenant's cap refused: it expires unannounced, so
 * the call's next proposal asks anew, and the call's refusal is appended without its body.
 */
export function takeBack(s: LedgerScope, id: string, r: Omit<Rejection, "evidence">): RunRow {
  expireApproval(s.sql, id);
  s.append({ ...rejectionDraft({ ...r, evidence: NO_BODY }), approvalId: id }, s.run);
  return s.run;
}

/** The call goes on; `approvalId` names the grant it spent, if a rule asked. */
export interface GoOn {
  /** The consumed approval, or null when no rule asked. */
  approvalId: string | null;
}

/**
 * Decide the approval half of a new intent that reaches its tool. Nothing is charged here:
 * the caller charges only a call that goes on, in the same transaction.
 */
export function approvalStep(
  s: LedgerScope,
  draft: AuditDraft & { args: string; auditArgs?: string; origin?: string },
  key: string | null,
  version: string,
): LedgerAnswer | GoOn {
  const tool = draft.tool ?? "";
  // Rules read the real arguments; what is stored and shown is their audit form.
  const shown = draft.auditArgs ?? draft.args;
  const rules = approvalRulesOf(s.fence, tool);
  if (rules.length === 0) return { approvalId: null };
  const fingerprint = draft.fingerprint ?? "";
  const latest = latestApproval(s.sql, tool, fingerprint, key);
  // An approver's edit is not asked about again: its grant decides, whatever the rules say.
  const editOf = latest !== null && latest.editedFingerprint === fingerprint ? latest : null;
  const asking = askingRule(rules, JSON.parse(draft.args), s.run.paid_used);
  const rule =
    editOf === null ? asking : (asking ?? { name: editOf.rule ?? "", always: true as const });
  if (rule === null) return { approvalId: null };
  const grant = grantFor(latest, version, s.now, fingerprint);
  if (grant.kind === "consume") {
    consumeApproval(s.sql, grant.id, draft.callId);
    return { approvalId: grant.id };
  }
  const budget = budgetView(s.run);
  if (grant.kind === "refuse") {
    if (grant.expire) expireApproval(s.sql, grant.id);
    const { reason } = grant.refusal;
    const { decision, status } = DECISION_TABLE[reason];
    s.append({ ...draft, decision, reason, status, approvalId: grant.id }, s.run);
    const edited = grant.editedArgs === undefined ? {} : { editedArgs: grant.editedArgs };
    // A pending one is expired by this proposal, which then records its outcome; one the
    // alarm expired (no longer pending) the alarm recorded.
    const lapsed =
      grant.expire && latest?.status === "pending"
        ? { expiredAfterMs: s.now - latest.requestedAt }
        : {};
    return {
      kind: "refuse",
      refusal: grant.refusal,
      budget,
      approvalId: grant.id,
      ...edited,
      ...lapsed,
    };
  }
  const created = grant.kind === "ask";
  const ttlMs = ruleWaitMs(rule, s.fence.policy.approval_ttl_ms);
  const { now } = s;
  const max = s.fence.policy.max_pending_approvals_per_run;
  if (created && pendingApprovals(s.sql, now) >= max) {
    const detail = `${max} approvals of this run already wait for a person; propose the call again once one is decided or expires.`;
    const refusal = refuse("approval_cap_exhausted", detail);
    const { decision, status } = DECISION_TABLE.approval_cap_exhausted;
    s.append({ ...draft, decision, reason: refusal.reason, status }, s.run);
    return { kind: "refuse", refusal, budget };
  }
  const opened = created
    ? {
        id: openApproval(s.sql, {
          ...draft,
          args: shown,
          key,
          rule,
          version,
          now,
          ttlMs,
          proposer: s.principal ?? null,
        }),
        requestedAt: now,
        expiresAt: now + ttlMs,
      }
    : grant;
  s.append(
    {
      ...draft,
      decision: created ? "approval_requested" : "needs_approval",
      reason: "approval_required",
      status: DECISION_TABLE.approval_required.status,
      approvalId: opened.id,
    },
    s.run,
  );
  const approval = {
    approval_id: opened.id,
    rule: rule.name,
    requested_at: new Date(opened.requestedAt).toISOString(),
    expires_at: new Date(opened.expiresAt).toISOString(),
    created,
    args: shown,
  };
  return { kind: "approval", approval, budget };
}
