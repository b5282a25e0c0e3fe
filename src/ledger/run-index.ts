/**
 * A tenant's index of its runs, kept in the tenant's own TenantLedger so listing them is one
 * strongly consistent read. A run is written here once, when its RunLedger row is created;
 * everything that changes with each call (status, budget, counts) stays in the run's own
 * object and is read from there, so the index is never on a call's path after the first.
 */

/**
 * The index's schema step, appended to the TenantLedger's migrations (a later step there makes
 * the table WITHOUT ROWID: tenant-migrations.ts).
 */
export const RUN_INDEX_SCHEMA = `CREATE TABLE run_index (
     run_id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX run_index_by_created ON run_index (created_at);`;

/** One run of the tenant, as indexed. */
export interface IndexedRun {
  /** The run id as the agent sent it. */
  run_id: string;
  /** When the run's ledger row was created (ms since the epoch). */
  created_at: number;
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
