/**
 * Writing a run into its tenant's run index, once. The run's row remembers when it was
 * indexed, so the tenant's object is called on the run's first call only; a failed call
 * leaves the mark unset and the next call of the run tries again.
 */
import { tenantLedgerOf } from "./address.ts";
import type { RunRow } from "./views.ts";

/**
 * Index the run of row `run` in its tenant's object. Answers when it was indexed, or null when
 * the tenant's object failed (the caller tries again later). Outside any transaction: a
 * decision never waits on another object.
 */
export async function registerRun(
  env: Env,
  run: Pick<RunRow, "tenant" | "run_id" | "created_at">,
): Promise<number | null> {
  try {
    await tenantLedgerOf(env, run.tenant).indexRun({
      run_id: run.run_id,
      created_at: run.created_at,
    });
    return Date.now();
  } catch (e) {
    console.error("run index write failed; retried on the run's next call", e);
    return null;
  }
}

/** Record in the run's row that the tenant's index took it at `at`. */
export function markIndexed(sql: SqlStorage, at: number): void {
  sql.exec("UPDATE run SET indexed_at = ? WHERE id = 1", at);
}
