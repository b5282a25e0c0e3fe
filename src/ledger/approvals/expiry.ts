/**
 * An approval's deadline as an event: when it passes with nobody having decided, the run's
 * alarm marks the approval `expired` and appends the denial to the log (`block`,
 * `approval_expired`), in the alarm's transaction; the RunLedger then tells the webhook and
 * the tenant's index. The call's next proposal is refused with the same reason, and no
 * operator can approve it afterwards (core/approval.ts `decidable`).
 */
import { DECISION_TABLE } from "../../core/reasons.ts";
import type { LedgerScope } from "../run/operator.ts";
import { NO_BODY } from "../run/refusal-keep.ts";
import type { ApprovalView } from "./approval-types.ts";
import { type ApprovalRow, approvalView, votesOf } from "./approvals.ts";

/** An approval and the origin its call came to, for the link of its notice. */
export interface AskedApproval {
  /** The approval as it now reads. */
  approval: ApprovalView;
  /** The origin the call that asked came to, or null. */
  origin: string | null;
}

/** An approval the alarm expired, and the call that asked for it. */
export interface LapsedApproval extends AskedApproval {
  /** The call that asked. */
  callId: string;
}

/**
 * Expire every pending approval whose deadline passed by `now`, each with its audit entry (the
 * fence's own act, under the call that asked); answers them, oldest first.
 */
export function expireLapsedApprovals(s: LedgerScope): LapsedApproval[] {
  const rows = s.sql
    .exec<ApprovalRow>(
      `UPDATE approval SET status = 'expired', expiry_unreported = 1
       WHERE status = 'pending' AND expires_at <= ? RETURNING *`,
      s.now,
    )
    .toArray()
    .sort((a, b) => a.requested_at - b.requested_at);
  const { decision, status } = DECISION_TABLE.approval_expired;
  for (const row of rows) {
    s.append(
      {
        callId: row.requested_by_call,
        tool: row.tool,
        form: null,
        decision,
        reason: "approval_expired",
        status,
        key: row.idempotency_key,
        fingerprint: row.fingerprint,
        cache: null,
        durationMs: null,
        evidence: NO_BODY,
        approvalId: row.id,
      },
      s.run,
    );
  }
  return rows.map((row) => ({
    approval: approvalView(s.run.run_id, row, s.now, votesOf(s.sql, row.id)),
    origin: row.origin,
    callId: row.requested_by_call,
  }));
}
