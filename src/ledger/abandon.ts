/**
 * Abandoned calls. An admitted call's worker can die (a crash, an eviction, a deploy) before
 * it settles; its audit entry would stay `pending` forever and its key `in_flight`. Each
 * pending entry has a lease (the call's timeout plus a margin); the RunLedger's alarm settles
 * every entry past it as `abandoned` and makes its key `retryable`, so the same key may try
 * again without a new charge. The charge stays: a paid call may have reached the upstream.
 */

/** Settle every pending entry whose lease ran out by `now`; returns how many. */
export function abandonExpired(sql: SqlStorage, now: number): number {
  const gone = sql
    .exec<{ call_id: string }>(
      `UPDATE audit SET decision = 'abandoned', duration_ms = ? - at
       WHERE decision = 'pending' AND lease_expires_at <= ? RETURNING call_id`,
      now,
      now,
    )
    .toArray();
  for (const { call_id } of gone) {
    sql.exec(
      "UPDATE idempotency_key SET phase = 'retryable' WHERE call_id = ? AND phase = 'in_flight'",
      call_id,
    );
  }
  return gone.length;
}

/** The earliest moment the alarm has work: a key to drop or a lease to settle, or null. */
export function nextWake(sql: SqlStorage): number | null {
  return sql
    .exec<{ at: number | null }>(
      `SELECT MIN(at) AS at FROM (
         SELECT MIN(expires_at) AS at FROM idempotency_key
         UNION ALL
         SELECT MIN(lease_expires_at) AS at FROM audit WHERE decision = 'pending')`,
    )
    .one().at;
}
