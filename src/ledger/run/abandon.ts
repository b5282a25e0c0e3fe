/**
 * Abandoned calls. An admitted call's worker can die (a crash, an eviction, a deploy) before
 * it settles; its entry would stay `pending` for ever and its key `in_flight`. Each pending
 * entry has a lease (the call's timeout plus a margin). An open entry past it is settled with
 * a second entry; the charge stays, as a paid call may have reached the upstream. The call may
 * have acted, so its key goes to a retry only when its upstream honours the key (a repeat gets
 * the first answer, no second effect): the entry is `abandoned` and the key `retryable`, and
 * the same key may try again without a new mutation charge (a paid tool's retry is a paid call
 * again). Otherwise sending it again could act twice: the entry is an escalation,
 * `upstream_outcome_unknown`, which the key stores and replays until an operator allows a retry.
 *
 * A lease moves no alarm forward (each call would move it twice: forward when admitted, back
 * when settled). A lapsed entry is settled by whatever touches the run first after its lease:
 * the next call with its key (src/core/admission.ts), a read of the run's status or log
 * (RunLedger), or the run's alarm, which rings by the run's end, or by the lease when that is
 * later (admittedWake), and is then set again by the leases still open (nextWake).
 */
import { problemBody } from "../../core/problem-details.ts";
import { DECISION_TABLE, refuse } from "../../core/reasons.ts";
import { type EntryDraft, expiredOpen, openEntry } from "../audit/audit-log.ts";
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

/** The note of a call settled as an escalation because it was abandoned (docs/api.md). */
const ABANDONED_UNHONOURED =
  "abandoned: not settled within its lease, and its upstream does not honour the idempotency key";

/**
 * Settle call `callId`, past its lease, at `now`: its open entry (if it is still open) with
 * `log`, and the key it holds (if it holds one), to the next retry when the key's upstream
 * honours it, else to a stored escalation.
 */
export function lapseCall(
  sql: SqlStorage,
  callId: string,
  run: RunRow,
  now: number,
  log: (draft: EntryDraft, run: RunRow, of: number) => void,
): void {
  const open = openEntry(sql, callId);
  const held = sql
    .exec<{ key: string; upstream_idempotent: number }>(
      "SELECT key, upstream_idempotent FROM idempotency_key WHERE call_id = ? AND phase = 'in_flight'",
      callId,
    )
    .toArray()[0];
  if (held === undefined || held.upstream_idempotent === 1) {
    if (open !== null) log(abandonedEntry(open, run, now), run, open.seq);
    if (held !== undefined) {
      sql.exec("UPDATE idempotency_key SET phase = 'retryable' WHERE key = ?", held.key);
    }
    return;
  }
  const refusal = refuse("upstream_outcome_unknown", UNHONOURED_DETAIL);
  const { decision, status } = DECISION_TABLE.upstream_outcome_unknown;
  if (open !== null) {
    const draft = { ...abandonedEntry(open, run, now), decision, reason: refusal.reason, status };
    log({ ...draft, note: ABANDONED_UNHONOURED }, run, open.seq);
  }
  sql.exec(
    "UPDATE idempotency_key SET phase = 'done', status = ?, body = ? WHERE key = ?",
    status,
    problemBody(refusal, { call_id: callId }),
    held.key,
  );
}

const UNHONOURED_DETAIL =
  "The call was sent, and the worker that sent it never settled it within its lease (a crash, an eviction or a deploy). Its upstream is not declared to honour the idempotency key, so sending it again could act twice: whether it acted is unknown. The call is settled with this outcome, and a retry with the same key replays it.";

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
  if (run === null) return null;
  for (const open of expiredOpen(sql, now)) lapseCall(sql, open.call_id, run, now, append);
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
