/**
 * The TenantLedger object, in two roles by name: one per shard of a tool's claimed targets
 * (tenant-wide per-target caps) and one per tenant (its approval and run indexes, console
 * sign-outs).
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalStatus } from "../core/approval.ts";
import { sha256HexSync } from "../core/audit-chain.ts";
import {
  type ApprovalAdmission,
  type ApprovalCaps,
  type ApprovalIndexEntry,
  admitApproval,
  indexedApprovals,
  markApproval,
  noteApproval,
} from "./approval-index.ts";
import { isSignedOut, recordSignOut } from "./console-sessions.ts";
import { FRESH_TENANT_SCHEMA } from "./fresh-schema.ts";
import { migrate } from "./migrate.ts";
import type { ClaimAnswer, TargetClaim } from "./protocol.ts";
import {
  admitRun,
  endRun,
  type IndexedRun,
  indexRun,
  type OpeningRun,
  type OpenRunCaps,
  type RunAdmission,
  recentRuns,
} from "./run-index.ts";
import {
  decideClaim,
  type LapsedClaim,
  lapsedClaims,
  releaseClaim,
  settleClaim,
} from "./target-claims.ts";
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
 * claims they hold; a new claim is checked in its shard. The object named by
 * tenant alone also keeps the tenant's approval index: written only when a call asks a
 * person, never on the path of a call that is admitted.
 *
 * The call path claims here while the run's RunLedger decides, and reaches the tool only when
 * both let it: it releases the claim if the run refuses the call, and asks the run to take
 * back a call it admitted when the claim is refused (RunLedger.withdraw). Until a refused
 * call's claim is released, a second run's claim on the same target is refused even if the
 * first is released a moment later: the rule fails closed, never open. A claim is
 * unconfirmed and has a lease: while it runs, the claim counts, whatever its run decides. Past
 * it, a claim that stands in another claim's way is settled then, by asking its run whether it
 * admitted a call on the target: confirmed if it did, dropped if not (a worker that died
 * before releasing it). So an uncontended claim costs one step and no alarm, and a question
 * is asked only of a claim that matters; until it is, the claim errs on the side of fewer
 * calls. Objects whose alarm was set for claims before settle them when it rings.
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
   * with the same idempotency key) holds its claim and is not counted twice. A claim past its
   * lease that stands in the way is first settled by asking its run (lapsed claims, below).
   */
  async claim(c: TargetClaim): Promise<ClaimAnswer> {
    for (;;) {
      const step = this.ctx.storage.transactionSync(() => decideClaim(this.sql, c, Date.now()));
      if (step.kind !== "ask") return step;
      // Other claims may land while the runs answer; the claim is decided again after.
      for (const lapsed of step.lapsed) await this.askRun(lapsed);
    }
  }

  /** Settle claims past their lease that an alarm set before was left to settle. */
  override async alarm(): Promise<void> {
    for (const lapsed of lapsedClaims(this.sql, Date.now())) await this.askRun(lapsed);
  }

  /**
   * Ask the run of an unconfirmed claim past its lease whether it admitted a call on the
   * target: confirm the claim if it did, drop it if not. A claim settled meanwhile is left.
   */
  private async askRun(claim: LapsedClaim): Promise<void> {
    const run = this.env.RUN_LEDGER.getByName(`${claim.tenant}/${claim.run_id}`);
    settleClaim(this.sql, claim, await run.usedTarget(claim.tool, claim.target));
  }

  /** Drop a fresh claim whose call the run refused; only the claiming call may drop it. */
  release(c: TargetClaim): void {
    releaseClaim(this.sql, c);
  }

  /**
   * Index a run about to be created, or refuse it when its key or the tenant has as many open
   * runs as the policy allows (run-index.ts); asked by the run's first write.
   */
  openRun(run: OpeningRun, caps: OpenRunCaps): RunAdmission {
    return this.ctx.storage.transactionSync(() => admitRun(this.sql, run, caps, Date.now()));
  }

  /** A run of the tenant was halted at `at`: it no longer counts as open. */
  endRun(runId: string, at: number): void {
    endRun(this.sql, runId, at);
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

  /**
   * Note a new approval of one of the tenant's runs unless the tenant has as many pending as
   * the policy allows; answers whether the webhook may page it (approval-index.ts).
   */
  admitApproval(entry: ApprovalIndexEntry, caps: ApprovalCaps): ApprovalAdmission {
    return this.ctx.storage.transactionSync(() => admitApproval(this.sql, entry, caps, Date.now()));
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
