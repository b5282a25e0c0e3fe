/**
 * Writing a run into its tenant's run index, once. The run's row remembers when it was
 * indexed, so the tenant's object is called on the run's first call only; a failed call
 * leaves the mark unset and the next call of the run tries again. The mark rides on the run's
 * next write, so it costs no transaction of its own; an object loaded again before any mark
 * was written indexes the run once more, which changes nothing.
 */
import { tenantLedgerOf } from "./address.ts";
import type { RunRow } from "./views.ts";

/**
 * Index the run of row `run` in its tenant's object. Answers when it was indexed, or null when
 * the tenant's object failed (the caller tries again later). Outside any transaction: a
 * decision never waits on another object.
 */
async function registerRun(
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

/** One RunLedger instance's side of the run index. */
export class RunIndexing {
  /** Whether this instance knows the run is in its tenant's index (a promise: writing it). */
  private indexed: boolean | Promise<void> = false;
  /** When the tenant's index took the run, until a write marks the run's row (null: nothing). */
  private indexedAt: number | null = null;
  private readonly env: Env;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(env: Env) {
    this.env = env;
  }

  /**
   * Inside a write's transaction on row `run`: mark the row if the index answered since.
   * Answers the row as marked.
   */
  mark(sql: SqlStorage, run: RunRow): RunRow {
    const at = this.indexedAt;
    this.indexedAt = null;
    if (at === null || run.indexed_at !== null) return run;
    sql.exec("UPDATE run SET indexed_at = ? WHERE id = 1", at);
    return { ...run, indexed_at: at };
  }

  /**
   * After a write: put the run in its tenant's index unless this instance or its row knows it
   * is there. Not awaited: the tenant's object is shared by all its runs, so no call's answer
   * waits on it.
   */
  once(run: RunRow): void {
    if (this.indexed !== false) return;
    if (run.indexed_at !== null) {
      this.indexed = true;
      return;
    }
    this.indexed = registerRun(this.env, run).then((at) => {
      this.indexed = at !== null;
      this.indexedAt = at;
    });
  }
}
