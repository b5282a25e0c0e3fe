/**
 * Abandoned calls. An admitted call's worker can die (a crash, an eviction, a deploy) before
 * it settles; its entry would stay `pending` for ever and its key `in_flight`. Each pending
 * entry has a lease (the call's timeout plus a margin). An open entry past it is settled with
 * a second entry, `abandoned`, and its key made `retryable`, so the same key may try again
 * without a new mutation charge (a paid tool's retry is a paid call again); the charge stays,
 * as a paid call may have reached the upstream.
 *
 * A lease moves no alarm forward (each call would move it twice: forward when admitted, back
 * when settled). A lapsed entry is settled by whatever touches the run first after its lease:
 * the next call with its key (src/core/admission.ts), a read of the run's status or log
 * (RunLedger), or the run's alarm, which rings by the run's end, or by the lease when that is
 * later (admittedWake), and is then set again by the leases still open (nextWake).
 */
import { type EntryDraft, expiredOpen } from "../audit/audit-log.ts";
import type { LedgerProposal } from "../protocol.ts";
import type { AuditRow, RunRow } from "../views.ts";
import { keyExpiresAt, mutationKey } from "./keys.ts";
import { readRun } from "./run-row.ts";

/** The outcome entry that closes `open` as abandoned at `now`. */
export function abandonedEntry(open: AuditRow, run: RunRow, now: number): EntryDraft {
  return {
    ...outcomeBase(open, run),
    decision: "abandoned",
    reason: null,
    status: null,
    cache: null,
    duration_ms: now - open.at,
  };
}

/**
 * Close `open`, the open entry of a call whose key another call took over (null: closed
 * already): its outcome is unknown.
 */
export function abandonCall(
  open: AuditRow | null,
  c: { run: RunRow; now: number },
  log: (draft: EntryDraft, run: RunRow, of: number) => void,
): void {
  if (open !== null) log(abandonedEntry(open, c.run, c.now), c.run, open.seq);
}

/** What an outcome entry keeps of the entry it settles: the call, not the payload again. */
export function outcomeBase(open: AuditRow, run: RunRow): EntryDraft {
  return {
    call_id: open.call_id,
    tool: open.tool,
    form: open.form,
    decision: "",
    reason: null,
    status: null,
    idempotency_key: open.idempotency_key,
    fingerprint: open.fingerprint,
    cache: null,
    duration_ms: null,
    mutations_used: run.mutations_used,
    paid_used: run.paid_used,
    content_type: null,
    payload: "",
    payload_truncated: 0,
    lease_expires_at: null,
    approval_id: open.approval_id,
    actor: null,
    note: null,
    resolves: null,
    uses: null,
    principal: null,
    upstream: null,
  };
}

/**
 * Settle every open entry whose lease ran out by `now` with `append`, and hand its key to the
 * next retry; returns how many.
 */
export function abandonExpired(
  sql: SqlStorage,
  run: RunRow,
  now: number,
  append: (d: EntryDraft, of: number) => void,
): number {
  const gone = expiredOpen(sql, now);
  for (const open of gone) {
    append(abandonedEntry(open, run, now), open.seq);
    sql.exec(
      "UPDATE idempotency_key SET phase = 'retryable' WHERE call_id = ? AND phase = 'in_flight'",
      open.call_id,
    );
  }
  return gone.length;
}

/**
 * The latest the run's alarm may ring for a call just admitted in run `run` (null: no bound):
 * by its key's expiry, and for a call left open, by the run's end, or its lease if later.
 */
export function admittedWake(
  p: Pick<LedgerProposal, "effect" | "key" | "outcome" | "leaseMs">,
  run: Pick<RunRow, "deadline_at"> | null,
  now: number,
  retentionMs: number,
): number | null {
  const key = mutationKey(p) === null ? null : keyExpiresAt(now, retentionMs);
  const open =
    p.outcome === null && run !== null ? Math.max(now + p.leaseMs, run.deadline_at) : null;
  if (key === null) return open;
  return open === null ? key : Math.min(key, open);
}

/**
 * Settle the open entries past their lease (before a read, so no reader sees a dead worker's
 * call as pending); answers the run's row, or null when the run was never seen.
 */
export function settleLapsed(
  sql: SqlStorage,
  now: number,
  append: (d: EntryDraft, run: RunRow, of: number) => void,
): RunRow | null {
  const run = readRun(sql);
  if (run !== null) abandonExpired(sql, run, now, (d, of) => append(d, run, of));
  return run;
}

/**
 * The alarm's lease step, inside its transaction: settle open entries past their lease as
 * abandoned, and drop idempotency keys past their retention.
 */
export function expireCalls(
  sql: SqlStorage,
  now: number,
  append: (d: EntryDraft, run: RunRow, of: number) => void,
): void {
  settleLapsed(sql, now, append);
  sql.exec(
    "DELETE FROM idempotency_key WHERE expires_at <= ? AND (phase != 'in_flight' OR lease_expires_at <= ?)",
    now,
    now,
  );
}

/**
 * The earliest moment the alarm has work: a key to drop, a lease to settle or an approval's
 * deadline to pass (approvals/expiry.ts), or null. One statement over three short tables: the
 * run's keys (no more than its mutation cap), the calls in flight (`open_call`) and the
 * approvals (no more pending than the run's cap).
 */
export function nextWake(sql: SqlStorage): number | null {
  return sql
    .exec<{ at: number | null }>(
      `SELECT MIN(at) AS at FROM (
         SELECT MIN(expires_at) AS at FROM idempotency_key
         UNION ALL SELECT MIN(lease_expires_at) FROM open_call
         UNION ALL SELECT MIN(expires_at) FROM approval WHERE status = 'pending')`,
    )
    .one().at;
}
