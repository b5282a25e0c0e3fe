/**
 * The TenantIndex object, one per tenant: its approval and run indexes, and its console
 * sign-outs.
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalStatus } from "../core/approval.ts";
import {
  type ApprovalAdmission,
  type ApprovalCaps,
  type ApprovalIndexEntry,
  admitApproval,
  indexedApprovals,
  markApproval,
  noteApproval,
} from "./approvals/approval-index.ts";
import { FRESH_TENANT_INDEX_SCHEMA } from "./schema/fresh-schema.ts";
import { migrate } from "./schema/migrate.ts";
import { TENANT_INDEX_MIGRATIONS } from "./schema/tenant-migrations.ts";
import { isSignedOut, recordSignOut } from "./tenant/console-sessions.ts";
import {
  admitRun,
  endRun,
  type IndexedRun,
  indexRun,
  type OpeningRun,
  type OpenRunCaps,
  type RunAdmission,
  recentRuns,
} from "./tenant/run-index.ts";

/**
 * What spans a tenant's runs and is not a claim: the index of its approvals (written when a
 * call asks a person, never on the path of a call that is admitted), the index of its runs
 * (written once per run, at its first call, which counts the tenant's open runs: run-index.ts),
 * and the console sessions signed out before they expired (console-sessions.ts). Named by the
 * tenant alone (tenantIndexOf), so it is shared by all of a tenant's runs: no call waits on it
 * but a run's first.
 */
export class TenantIndex extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql, TENANT_INDEX_MIGRATIONS, FRESH_TENANT_INDEX_SCHEMA);
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
