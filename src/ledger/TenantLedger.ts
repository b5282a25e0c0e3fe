/**
 * The TenantLedger object, in two roles by name: one per shard of a tool's claimed targets
 * (tenant-wide per-target caps) and one per tenant (its approval and run indexes, console
 * sign-outs).
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalStatus } from "../core/approval.ts";
import { sha256HexSync } from "../core/audit-chain.ts";
import { refuse } from "../core/reasons.ts";
import {
  type ApprovalIndexEntry,
  indexedApprovals,
  markApproval,
  noteApproval,
} from "./approval-index.ts";
import { isSignedOut, recordSignOut } from "./console-sessions.ts";
import { FRESH_TENANT_SCHEMA } from "./fresh-schema.ts";
import { migrate } from "./migrations.ts";
import type { ClaimAnswer, TargetClaim } from "./protocol.ts";
import { type IndexedRun, indexRun, recentRuns } from "./run-index.ts";
import { TENANT_MIGRATIONS } from "./tenant-migrations.ts";

/**
 * How many objects hold a tenant's claims on one tool. Each target belongs to one of them, by
 * its hash, so a tenant's capped mutations spread over this many objects per tool, and a new
 * target lands in an object that exists already instead of creating one per target.
 */
export const CLAIM_SHARDS = 64;

/** The shard of `target`: the first 32 bits of its SHA-256, modulo CLAIM_SHARDS. */
export function claimShard(target: string): number {
  return Number.parseInt(sha256HexSync(target).slice(0, 8), 16) % CLAIM_SHARDS;
}

/**
 * The name of the one object that holds every claim on `target` of `tool` in `tenant` (and on
 * the other targets of its shard). A JSON array keeps the parts apart whatever a tenant holds.
 */
export function claimObjectName(c: Pick<TargetClaim, "tenant" | "tool" | "target">): string {
  return JSON.stringify(["claims/v2", c.tenant, c.tool, claimShard(c.target)]);
}

/**
 * The claims on the targets of one shard whose per-target cap spans all of a tenant's runs,
 * such as "one create per ticket_id". Named by tenant + tool + the target's shard
 * (claimObjectName), so every run claiming that target meets the same single-threaded object, a
 * claim is one `transactionSync` check-and-insert, and no object is shared by all of the
 * tenant's targets: a tenant's capped mutations spread over CLAIM_SHARDS objects per tool
 * (docs/scaling.md). Objects named before (by tenant alone, then one per target) keep the
 * claims they hold and their alarms; a new claim is checked in its shard. The object named by
 * tenant alone also keeps the tenant's approval index: written only when a call asks a
 * person, never on the path of a call that is admitted.
 *
 * The call path claims here while the run's RunLedger decides, and reaches the tool only when
 * both let it: it releases the claim if the run refuses the call, and asks the run to take
 * back a call it admitted when the claim is refused (RunLedger.withdraw). Until a refused
 * call's claim is released, a second run's claim on the same target is refused even if the
 * first is released a moment later: the rule fails closed, never open. A fresh claim is
 * unconfirmed and has a lease; the call confirms it once its run admitted it (after the
 * answer). A worker that dies before either can neither release nor confirm it, so when the
 * lease runs out the alarm asks the run whether it admitted a call on the target, and
 * confirms the claim if it did or releases it if it did not. The alarm is off the call path;
 * until it rings, the claim errs on the side of fewer calls.
 *
 * It also holds the tenant's run index (`run-index.ts`), written once per run, and the console
 * sessions signed out before they expired (`console-sessions.ts`).
 */
export class TenantLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql, TENANT_MIGRATIONS, FRESH_TENANT_SCHEMA);
  }

  /**
   * Claim the target for one intent of one run. The same intent claiming again (a retry
   * with the same idempotency key) holds its claim and is not counted twice.
   */
  async claim(c: TargetClaim): Promise<ClaimAnswer> {
    const answer = this.decideClaim(c);
    if (answer.kind === "held" && answer.fresh) {
      // The alarm must ring by the lease; the write is committed with the claim's own.
      const at = Date.now() + c.leaseMs;
      const current = await this.ctx.storage.getAlarm();
      if (current === null || current > at) await this.ctx.storage.setAlarm(at);
    }
    return answer;
  }

  private decideClaim(c: TargetClaim): ClaimAnswer {
    return this.ctx.storage.transactionSync((): ClaimAnswer => {
      // Every claim on the target, oldest first, each marked if it is this intent's own.
      const claims = this.sql
        .exec<{ run_id: string; own: number }>(
          `SELECT run_id, run_id = ? AND intent = ? AS own FROM target_claim
           WHERE tool = ? AND target = ? ORDER BY claimed_at`,
          c.runId,
          c.intent,
          c.tool,
          c.target,
        )
        .toArray();
      if (claims.some((o) => o.own === 1)) return { kind: "held", fresh: false };
      if (claims.length >= c.max) {
        const first = claims[0]?.run_id ?? "";
        const detail = `${c.tool} may run at most ${c.max} time(s) per ${c.arg} across this tenant's runs; ${c.arg} ${JSON.stringify(c.target)} was claimed by run ${first}.`;
        return { kind: "refuse", refusal: refuse("target_cap_exhausted", detail) };
      }
      const now = Date.now();
      this.sql.exec(
        `INSERT INTO target_claim (tool, target, run_id, intent, call_id, claimed_at, tenant,
           lease_expires_at, confirmed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
        c.tool,
        c.target,
        c.runId,
        c.intent,
        c.callId,
        now,
        c.tenant,
        now + c.leaseMs,
      );
      return { kind: "held", fresh: true };
    });
  }

  /** Settle unconfirmed claims past their lease by asking their runs; then wake for the next. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const due = this.sql
      .exec<{ tool: string; target: string; run_id: string; intent: string; tenant: string }>(
        "SELECT tool, target, run_id, intent, tenant FROM target_claim WHERE confirmed = 0 AND lease_expires_at <= ?",
        now,
      )
      .toArray();
    for (const claim of due) {
      const run = this.env.RUN_LEDGER.getByName(`${claim.tenant}/${claim.run_id}`);
      const admitted = await run.usedTarget(claim.tool, claim.target);
      this.sql.exec(
        admitted
          ? "UPDATE target_claim SET confirmed = 1 WHERE tool = ? AND target = ? AND run_id = ? AND intent = ?"
          : "DELETE FROM target_claim WHERE tool = ? AND target = ? AND run_id = ? AND intent = ?",
        claim.tool,
        claim.target,
        claim.run_id,
        claim.intent,
      );
    }
    const next = this.sql
      .exec<{ at: number | null }>(
        "SELECT MIN(lease_expires_at) AS at FROM target_claim WHERE confirmed = 0",
      )
      .one().at;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  /**
   * Confirm a fresh claim whose call the run admitted, so its lease needs no question to the
   * run; only the claiming call may confirm it. A claim never confirmed (its worker died) is
   * settled by the alarm, which is left as it is: it rings once a lease for the whole shard.
   */
  confirm(c: TargetClaim): void {
    this.sql.exec(
      `UPDATE target_claim SET confirmed = 1
       WHERE tool = ? AND target = ? AND run_id = ? AND intent = ? AND call_id = ?`,
      c.tool,
      c.target,
      c.runId,
      c.intent,
      c.callId,
    );
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

  /** Refuse a console session from now on: it was signed out. */
  signOut(sessionId: string, expiresAt: number): void {
    recordSignOut(this.sql, sessionId, expiresAt);
  }

  /** Whether a console session was signed out. */
  signedOut(sessionId: string): boolean {
    return isSignedOut(this.sql, sessionId);
  }

  /** Note a new approval of one of the tenant's runs, or its new state. */
  noteApproval(entry: ApprovalIndexEntry): void {
    noteApproval(this.sql, entry);
  }

  /** Note that an approval of one of the tenant's runs changed status. */
  markApproval(id: string, status: ApprovalStatus): void {
    markApproval(this.sql, id, status);
  }

  /** The tenant's approvals, oldest first, or only those of `status`. */
  approvals(status: ApprovalStatus | null, limit: number): ApprovalIndexEntry[] {
    return indexedApprovals(this.sql, status, Date.now(), limit);
  }
}
