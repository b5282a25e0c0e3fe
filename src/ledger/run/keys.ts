/**
 * Idempotency keys in the run's ledger: their state, taking one for an admitted call, and
 * the stored answer a replay returns.
 */
import type { KeyState } from "../../core/admission.ts";
import type { LedgerProposal } from "../protocol.ts";

/**
 * The most bytes of an answer a key stores for replay. A Durable Object's SQLite refuses a
 * string or row over 2 MB (SQLITE_TOOBIG); the rest of the row fits in what is left.
 */
export const MAX_STORED_ANSWER_BYTES = 1_900_000;

/**
 * The call's idempotency key as the ledger keeps it: a mutation's. A key sent with a read is
 * only recorded.
 */
export function mutationKey(p: Pick<LedgerProposal, "effect" | "key">): string | null {
  return p.effect === "mutate" ? p.key : null;
}

/** When a key taken at `now` is dropped: the policy's retention period later. */
export function keyExpiresAt(now: number, retentionMs: number): number {
  return now + retentionMs;
}

/** The stored state of an idempotency key, or null when it was never used. */
export function readKey(sql: SqlStorage, key: string): KeyState | null {
  const row = sql
    .exec<{ fingerprint: string; phase: string; lease_expires_at: number; call_id: string }>(
      "SELECT fingerprint, phase, lease_expires_at, call_id FROM idempotency_key WHERE key = ?",
      key,
    )
    .toArray()[0];
  if (row === undefined) return null;
  return {
    fingerprint: row.fingerprint,
    phase: row.phase as KeyState["phase"],
    leaseExpiresAt: row.lease_expires_at,
    callId: row.call_id,
  };
}

/**
 * Take the key for an admitted call: `in_flight` with a lease, or `done` at once when the
 * outcome is already known; with whether its upstream honours it, as the call was sent. A key
 * is taken only when it is new or `retryable` (admission.ts): a call that held it past its
 * lease was settled first (abandon.ts).
 */
export function holdKey(
  sql: SqlStorage,
  key: string,
  p: LedgerProposal,
  now: number,
  retentionMs: number,
): void {
  const settled = p.outcome !== null;
  sql.exec(
    `INSERT INTO idempotency_key (key, fingerprint, phase, call_id, lease_expires_at, status, body,
       expires_at, upstream_idempotent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET phase = excluded.phase, call_id = excluded.call_id,
       lease_expires_at = excluded.lease_expires_at, status = excluded.status, body = excluded.body,
       upstream_idempotent = excluded.upstream_idempotent`,
    key,
    p.fingerprint,
    settled ? "done" : "in_flight",
    p.callId,
    now + p.leaseMs,
    p.outcome?.status ?? null,
    p.outcome?.body ?? null,
    keyExpiresAt(now, retentionMs),
    p.upstreamIdempotent === true ? 1 : 0,
  );
}

/** The stored answer of a finished key. */
export function storedAnswer(sql: SqlStorage, key: string): { status: number; body: string } {
  return sql
    .exec<{ status: number; body: string }>(
      "SELECT status, body FROM idempotency_key WHERE key = ?",
      key,
    )
    .one();
}
