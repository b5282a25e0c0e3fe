/**
 * Settling an admitted call with its outcome, inside the RunLedger's transaction: the outcome
 * is a second entry naming the open one, and the call's key stores the answer for replay.
 */
import { outcomeBase } from "./abandon.ts";
import type { EntryDraft } from "./audit-log.ts";
import type { LogMirror } from "./log-mirror.ts";
import type { Settlement } from "./protocol.ts";
import type { RunRow } from "./views.ts";

/**
 * Settle the call with `log` (the ledger's append of an outcome), its open entry found through
 * `kept`; nothing if it is closed. Returns the run's row, which settling does not change.
 */
export function settleCall(
  sql: SqlStorage,
  kept: LogMirror,
  run: RunRow,
  s: Settlement,
  log: (draft: EntryDraft, run: RunRow, of: number) => void,
): RunRow {
  const { outcome } = s;
  // Only an open entry is settled: one the alarm already closed as abandoned stays so,
  // and its key is left to the retry it was handed to.
  const open = kept.openEntry(sql, s.callId);
  if (open === null) return run;
  log(
    {
      ...outcomeBase(open, run),
      decision: outcome.decision,
      reason: outcome.reason,
      status: outcome.status,
      cache: outcome.cache,
      duration_ms: s.durationMs,
    },
    run,
    open.seq,
  );
  if (s.key === null) return run;
  // Only the call that holds the key may settle it: a worker that outlived its lease must
  // not overwrite the outcome of the call that took the key over.
  sql.exec(
    "UPDATE idempotency_key SET phase = ?, status = ?, body = ? WHERE key = ? AND call_id = ?",
    outcome.decision === "retry" ? "retryable" : "done",
    outcome.status,
    outcome.body,
    s.key,
    s.callId,
  );
  return run;
}
