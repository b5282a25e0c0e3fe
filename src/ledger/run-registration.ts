/**
 * Writing a run into its tenant's run index, once. The run's row remembers when it was
 * indexed, so the tenant's object is called on the run's first call only; a failed call
 * leaves the mark unset and the next call of the run tries again.
 */
import { tenantLedgerOf } from "./address.ts";

/**
 * Index the run whose row `sql` holds, unless its row says it already is. Answers whether
 * the run is now indexed: false when it has no row yet or the tenant's object failed.
 */
export async function registerRun(env: Env, sql: SqlStorage): Promise<boolean> {
  const row = sql
    .exec<{ tenant: string; run_id: string; created_at: number; indexed_at: number | null }>(
      "SELECT tenant, run_id, created_at, indexed_at FROM run WHERE id = 1",
    )
    .toArray()[0];
  if (row === undefined) return false;
  if (row.indexed_at !== null) return true;
  try {
    // Outside any transaction: a decision never waits on another object.
    await tenantLedgerOf(env, row.tenant).indexRun({
      run_id: row.run_id,
      created_at: row.created_at,
    });
  } catch (e) {
    console.error("run index write failed; retried on the run's next call", e);
    return false;
  }
  sql.exec("UPDATE run SET indexed_at = ? WHERE id = 1", Date.now());
  return true;
}
