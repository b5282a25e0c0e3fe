/**
 * A tenant's index of its runs, kept in the tenant's own TenantIndex so listing them is one
 * strongly consistent read. A run is written here once, when its RunLedger row is created;
 * everything that changes with each call (status, budget, counts) stays in the run's own
 * object and is read from there, so the index is never on a call's path after the first.
 */

/** One run of the tenant, as indexed. */
export interface IndexedRun {
  /** The run id as the agent sent it. */
  run_id: string;
  /** When the run's ledger row was created (ms since the epoch). */
  created_at: number;
}

/** A run about to be created, as the index counts it. */
export interface OpeningRun extends IndexedRun {
  /** The key that opens it (`RunRef.by`), or null. */
  opened_by: string | null;
  /** When it stops being open unless halted sooner: its deadline (ms since the epoch). */
  ends_at: number;
}

/** The policy's caps on open runs. */
export interface OpenRunCaps {
  /** Most open runs of one key. */
  perKey: number;
  /** Most open runs of the tenant. */
  perTenant: number;
}

/** Whether a run may be created: it is indexed, or the cap it met. */
export type RunAdmission =
  | { ok: true }
  | { ok: false; scope: "key" | "tenant"; max: number; open: number };

/**
 * Index a run about to be created, unless its key or its tenant already has as many open runs
 * as the policy allows; a run indexed already (a retry, or a second first call) is let in.
 * Inside one transaction, so two runs opening at once are counted one after the other.
 */
export function admitRun(
  sql: SqlStorage,
  run: OpeningRun,
  caps: OpenRunCaps,
  now: number,
): RunAdmission {
  const known = sql.exec("SELECT 1 FROM run_index WHERE run_id = ?", run.run_id).toArray();
  if (known.length > 0) return { ok: true };
  const open = (where: string, ...params: SqlStorageValue[]) =>
    sql.exec<{ n: number }>(`SELECT count(*) AS n FROM run_index WHERE ${where}`, ...params).one()
      .n;
  if (run.opened_by !== null) {
    const byKey = open("opened_by = ? AND ends_at > ?", run.opened_by, now);
    if (byKey >= caps.perKey) return { ok: false, scope: "key", max: caps.perKey, open: byKey };
  }
  const byTenant = open("ends_at > ?", now);
  if (byTenant >= caps.perTenant) {
    return { ok: false, scope: "tenant", max: caps.perTenant, open: byTenant };
  }
  sql.exec(
    "INSERT INTO run_index (run_id, created_at, opened_by, ends_at) VALUES (?, ?, ?, ?)",
    run.run_id,
    run.created_at,
    run.opened_by,
    run.ends_at,
  );
  return { ok: true };
}

/** The run ended at `at` (halted): it no longer counts as open. */
export function endRun(sql: SqlStorage, runId: string, at: number): void {
  sql.exec("UPDATE run_index SET ends_at = min(ends_at, ?) WHERE run_id = ?", at, runId);
}

/** Index a run; indexing it again (a retry after a lost answer) changes nothing. */
export function indexRun(sql: SqlStorage, run: IndexedRun): void {
  sql.exec(
    "INSERT INTO run_index (run_id, created_at) VALUES (?, ?) ON CONFLICT (run_id) DO NOTHING",
    run.run_id,
    run.created_at,
  );
}

/** The `limit` runs created most recently, newest first. */
export function recentRuns(sql: SqlStorage, limit: number): IndexedRun[] {
  return sql
    .exec<{ run_id: string; created_at: number }>(
      "SELECT run_id, created_at FROM run_index ORDER BY created_at DESC, run_id LIMIT ?",
      limit,
    )
    .toArray()
    .map((r) => ({ run_id: r.run_id, created_at: r.created_at }));
}
