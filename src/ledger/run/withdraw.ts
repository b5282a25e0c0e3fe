/**
 * Withdrawing an admitted call whose tenant-wide claim was refused, inside the RunLedger's
 * transaction. The worker asks the target's claim object and the run at the same time
 * (src/http/calls.ts); when the run admitted the call but the claim was refused, the call
 * never reaches its tool, so the run gives back what the admission took and closes the open
 * entry with the refusal.
 */
import { DECISION_TABLE } from "../../core/reasons.ts";
import { returnApproval } from "../approvals/approvals.ts";
import { type EntryDraft, openEntry } from "../audit/audit-log.ts";
import type { Withdrawal } from "../protocol.ts";
import type { RunRow } from "../views.ts";
import { outcomeBase } from "./abandon.ts";
import { chargeRun } from "./run-row.ts";
import { countUse } from "./usage.ts";

/**
 * Give back the charge, the tool's and target's use, the idempotency key (a new intent's is
 * dropped, so a retry is decided afresh; a retried intent's is retryable again) and an
 * approval the call spent; then close the open entry with the refusal. Returns the run's row
 * after. A call already closed (abandoned by the alarm) is left as it is, like any abandoned
 * call: its charge stays.
 */
export function withdrawCall(
  sql: SqlStorage,
  run: RunRow,
  w: Withdrawal,
  log: (draft: EntryDraft, run: RunRow, of: number) => void,
): RunRow {
  const open = openEntry(sql, w.callId);
  if (open === null) return run;
  const { charge } = w;
  const row = chargeRun(sql, run, { mutations: -charge.mutations, paid: -charge.paid });
  const uses = countUse(sql, { ...charge, calls: -charge.calls }, open.tool ?? "", w.target);
  if (w.key !== null) {
    sql.exec(
      charge.calls > 0
        ? "DELETE FROM idempotency_key WHERE key = ? AND call_id = ?"
        : "UPDATE idempotency_key SET phase = 'retryable' WHERE key = ? AND call_id = ?",
      w.key,
      w.callId,
    );
  }
  returnApproval(sql, w.callId);
  const { decision, status } = DECISION_TABLE[w.refusal.reason];
  log(
    {
      ...outcomeBase(open, row),
      decision,
      reason: w.refusal.reason,
      status,
      duration_ms: w.durationMs,
      uses,
    },
    row,
    open.seq,
  );
  return row;
}
