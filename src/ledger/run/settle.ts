/**
 * Settling an admitted call with its outcome, inside the RunLedger's transaction: the outcome
 * is a second entry naming the open one, and the call's key stores the answer for replay.
 */
import { DECISION_TABLE } from "../../core/reasons.ts";
import { type EntryDraft, openEntry } from "../audit/audit-log.ts";
import type { Settlement } from "../protocol.ts";
import type { RunRow } from "../views.ts";
import { outcomeBase } from "./abandon.ts";

/** The note of an outcome that settled after the run was halted (docs/audit.md). */
export const SETTLED_AFTER_HALT = "settled after the run was halted";

/**
 * Settle the call with `log` (the ledger's append of an outcome), its open entry found through
 * `open_call`; nothing if it is closed. Returns the run's row, which settling does not change.
 *
 * A call settled after its run was halted (it was admitted before) says so in its entry's
 * note. A mutation's outcome cannot be taken back and stands; a read's result is not
 * answered, so its entry is the `run_halted` refusal the caller gets, naming the outcome that
 * came too late.
 */
export function settleCall(
  sql: SqlStorage,
  run: RunRow,
  s: Settlement,
  log: (draft: EntryDraft, run: RunRow, of: number) => void,
): RunRow {
  const { outcome } = s;
  // Only an open entry is settled: one the alarm already closed as abandoned stays so,
  // and its key is left to the retry it was handed to.
  const open = openEntry(sql, s.callId);
  if (open === null) return run;
  const late = run.halted_at !== null;
  const withheld = late && s.effect === "read";
  log(
    {
      ...outcomeBase(open, run),
      decision: withheld ? "block" : outcome.decision,
      reason: withheld ? "run_halted" : outcome.reason,
      status: withheld ? DECISION_TABLE.run_halted.status : outcome.status,
      cache: outcome.cache,
      duration_ms: s.durationMs,
      note: late ? `${SETTLED_AFTER_HALT} (outcome: ${outcome.decision})` : (outcome.note ?? null),
      upstream: outcome.upstream ?? null,
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
