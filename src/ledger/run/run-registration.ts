/**
 * Writing a run into its tenant's run index, once. A run's first write asks its tenant's object
 * first, which counts the tenant's open runs against the policy's caps and indexes the run, or
 * refuses it (then no run is created). The run's row remembers when it was indexed, so the
 * tenant's object is called on the run's first call only; the mark rides on the run's write, so
 * it costs no transaction of its own. A run created without that question (halted before its
 * first call: no mark) is indexed after its next write, not awaited; indexing it again changes
 * nothing.
 */

import type { Fence } from "../../core/policy.ts";
import { limitsFor } from "../../core/policy.ts";
import { refuse } from "../../core/reasons.ts";
import { tenantIndexOf } from "../address.ts";
import type { Recorded, RunRef } from "../protocol.ts";
import { type RunRow, unusedBudget } from "../views.ts";

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
    await tenantIndexOf(env, run.tenant).indexRun({
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
  private readonly fence: Fence;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(env: Env, fence: Fence) {
    this.env = env;
    this.fence = fence;
  }

  /**
   * Before the write that creates the run: ask its tenant's object to index it, which it does
   * unless the run's key or the tenant has as many open runs as the policy allows. Answers the
   * refusal (with an unused budget), or null when the run may be created (then indexed: its row is marked by the write).
   * Awaited, once per run: a run is created only when its tenant counted it. A tenant object
   * that fails fails the call, and nothing is created.
   */
  async admit(ref: RunRef, now: number): Promise<Recorded | null> {
    const { policy } = this.fence;
    const opening = {
      run_id: ref.runId,
      created_at: now,
      opened_by: ref.by ?? null,
      ends_at: now + limitsFor(this.fence, ref.tenant).deadline_ms,
    };
    const caps = {
      perKey: policy.max_open_runs_per_key,
      perTenant: policy.max_open_runs_per_tenant,
    };
    const answer = await tenantIndexOf(this.env, ref.tenant).openRun(opening, caps);
    if (!answer.ok) {
      const whose = answer.scope === "key" ? "This key" : `Tenant ${ref.tenant}`;
      const refusal = refuse(
        "run_cap_exhausted",
        `${whose} has ${answer.open} open runs, the most the policy allows (${answer.max}); halt a run or wait for one to reach its deadline before starting run ${ref.runId}.`,
      );
      return { refusal, budget: unusedBudget(limitsFor(this.fence, ref.tenant)) };
    }
    this.indexed = true;
    this.indexedAt = Date.now();
    return null;
  }

  /** Tell the tenant's index the run was halted at `at`; a failure leaves it counted till its deadline. */
  async ended(run: Pick<RunRow, "tenant" | "run_id">, at: number): Promise<void> {
    try {
      await tenantIndexOf(this.env, run.tenant).endRun(run.run_id, at);
    } catch (e) {
      console.error("run index end failed; the run counts as open until its deadline", e);
    }
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
