import { DurableObject } from "cloudflare:workers";
import { refuse } from "../core/reasons.ts";
import { migrate, TENANT_MIGRATIONS } from "./migrations.ts";
import type { ClaimAnswer, TargetClaim } from "./protocol.ts";
import { type IndexedRun, indexRun, recentRuns } from "./run-index.ts";

/**
 * One tenant's claims on targets whose per-target cap spans all of its runs, such as
 * "one create per ticket_id". Named by tenant, so every run of the tenant meets the same
 * single-threaded object, and a claim is one `transactionSync` check-and-insert.
 *
 * The call path claims here before the run's RunLedger decides, and releases the claim
 * if the run then refuses the call. Between the two steps a second run's claim on the
 * same target is refused even if the first is released a moment later: the rule fails
 * closed, never open. A worker that dies between the steps leaves its claim in place,
 * which also errs on the side of fewer calls.
 *
 * It also holds the tenant's run index (`run-index.ts`), written once per run.
 */
export class TenantLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql, TENANT_MIGRATIONS);
  }

  /**
   * Claim the target for one intent of one run. The same intent claiming again (a retry
   * with the same idempotency key) holds its claim and is not counted twice.
   */
  claim(c: TargetClaim): ClaimAnswer {
    return this.ctx.storage.transactionSync((): ClaimAnswer => {
      const held = this.sql
        .exec(
          "SELECT 1 FROM target_claim WHERE tool = ? AND target = ? AND run_id = ? AND intent = ?",
          c.tool,
          c.target,
          c.runId,
          c.intent,
        )
        .toArray();
      if (held.length > 0) return { kind: "held", fresh: false };
      const others = this.sql
        .exec<{ run_id: string }>(
          "SELECT run_id FROM target_claim WHERE tool = ? AND target = ? ORDER BY claimed_at",
          c.tool,
          c.target,
        )
        .toArray();
      if (others.length >= c.max) {
        const first = others[0]?.run_id ?? "";
        const detail = `${c.tool} may run at most ${c.max} time(s) per ${c.arg} across this tenant's runs; ${c.arg} ${JSON.stringify(c.target)} was claimed by run ${first}.`;
        return { kind: "refuse", refusal: refuse("target_cap_exhausted", detail) };
      }
      this.sql.exec(
        "INSERT INTO target_claim (tool, target, run_id, intent, call_id, claimed_at) VALUES (?, ?, ?, ?, ?, ?)",
        c.tool,
        c.target,
        c.runId,
        c.intent,
        c.callId,
        Date.now(),
      );
      return { kind: "held", fresh: true };
    });
  }

  /** Drop a fresh claim whose call the run refused; only the claiming call may drop it. */
  release(c: TargetClaim): void {
    this.sql.exec(
      "DELETE FROM target_claim WHERE tool = ? AND target = ? AND run_id = ? AND intent = ? AND call_id = ?",
      c.tool,
      c.target,
      c.runId,
      c.intent,
      c.callId,
    );
  }

  /** Add a run to the tenant's index; called once, when the run's ledger row is created. */
  indexRun(run: IndexedRun): void {
    indexRun(this.sql, run);
  }

  /** The tenant's `limit` most recently created runs, newest first. */
  runs(limit: number): IndexedRun[] {
    return recentRuns(this.sql, limit);
  }
}
