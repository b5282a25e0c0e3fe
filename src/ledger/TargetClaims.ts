/**
 * The TargetClaims object: one per shard of a tool's claimed targets, for tenant-wide
 * per-target caps.
 */
import { DurableObject } from "cloudflare:workers";
import { sha256HexSync } from "../core/audit-chain.ts";
import type { ClaimAnswer, TargetClaim } from "./protocol.ts";
import { FRESH_CLAIMS_SCHEMA } from "./schema/fresh-schema.ts";
import { migrate } from "./schema/migrate.ts";
import { CLAIMS_MIGRATIONS } from "./schema/tenant-migrations.ts";
import {
  decideClaim,
  type LapsedClaim,
  releaseClaim,
  settleClaim,
} from "./tenant/target-claims.ts";

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
 * (docs/scaling.md).
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
 * calls.
 */
export class TargetClaims extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql, CLAIMS_MIGRATIONS, FRESH_CLAIMS_SCHEMA);
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
}
