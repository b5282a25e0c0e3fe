/**
 * The SQLite schemas of the tenant's objects, TargetClaims and TenantIndex, as numbered,
 * append-only steps, applied by migrate() (migrate.ts); step 1 of each is its whole schema.
 * Each table keeps its rows in its key's own b-tree (WITHOUT ROWID), as the RunLedger's keyed
 * tables do.
 */

/**
 * A TargetClaims object's: claims on targets whose per-target cap spans every run of the
 * tenant, one row per (tool, target, run, intent), an intent being an idempotency key, so a
 * retry of the same intent holds the same claim (target-claims.ts).
 */
export const CLAIMS_MIGRATIONS: readonly string[] = [
  `CREATE TABLE target_claim (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     run_id TEXT NOT NULL,
     intent TEXT NOT NULL,
     call_id TEXT NOT NULL,
     claimed_at INTEGER NOT NULL,
     tenant TEXT NOT NULL,
     lease_expires_at INTEGER,
     confirmed INTEGER NOT NULL,
     PRIMARY KEY (tool, target, run_id, intent)
   ) WITHOUT ROWID;
   CREATE INDEX target_claim_lease ON target_claim (lease_expires_at) WHERE confirmed = 0;`,
];

/**
 * A TenantIndex object's: the tenant's index of approvals (approval-index.ts) and of runs
 * (run-index.ts), and the console sessions signed out before they expired
 * (console-sessions.ts).
 */
export const TENANT_INDEX_MIGRATIONS: readonly string[] = [
  `CREATE TABLE approval_index (
     approval_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     rule TEXT NOT NULL,
     status TEXT NOT NULL,
     requested_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     paged INTEGER NOT NULL DEFAULT 0
   ) WITHOUT ROWID;
   CREATE INDEX approval_index_by_status ON approval_index (status, requested_at);
   CREATE TABLE run_index (
     run_id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     opened_by TEXT,
     ends_at INTEGER
   ) WITHOUT ROWID;
   CREATE INDEX run_index_by_created ON run_index (created_at);
   CREATE INDEX run_index_open ON run_index (ends_at);
   CREATE INDEX run_index_open_by ON run_index (opened_by, ends_at);
   CREATE TABLE console_signed_out (
     session_id TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX console_signed_out_expiry ON console_signed_out (expires_at);`,
];
