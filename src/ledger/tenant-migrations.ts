/**
 * The TenantLedger's SQLite schema as numbered, append-only steps, applied by migrate()
 * (migrate.ts).
 */
import { APPROVAL_PAGED_SCHEMA } from "./approval-index.ts";
import { SIGNED_OUT_SCHEMA } from "./console-sessions.ts";
import { RUN_INDEX_OPEN_SCHEMA, RUN_INDEX_SCHEMA } from "./run-index.ts";

/**
 * The steps, first the claims on targets whose per-target cap spans every run of the tenant:
 * one row per (tool, target, run, intent); an intent is an idempotency key, so a retry of the
 * same intent holds the same claim.
 */
export const TENANT_MIGRATIONS: readonly string[] = [
  `CREATE TABLE target_claim (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     run_id TEXT NOT NULL,
     intent TEXT NOT NULL,
     call_id TEXT NOT NULL,
     claimed_at INTEGER NOT NULL,
     PRIMARY KEY (tool, target, run_id, intent)
   );`,
  // A claim is confirmed once its run is known to have admitted the call; until then it has a
  // lease, and the alarm asks the run and releases the claim if the call never got in. Claims
  // made before this step are taken as confirmed.
  `ALTER TABLE target_claim ADD COLUMN tenant TEXT;
   ALTER TABLE target_claim ADD COLUMN lease_expires_at INTEGER;
   ALTER TABLE target_claim ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 1;
   CREATE INDEX target_claim_lease ON target_claim (lease_expires_at) WHERE confirmed = 0;`,
  // An index of the tenant's approvals, so an operator lists them without knowing the runs;
  // each run's RunLedger holds the approval itself and decides it.
  `CREATE TABLE approval_index (
     approval_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     rule TEXT NOT NULL,
     status TEXT NOT NULL,
     requested_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX approval_index_by_status ON approval_index (status, requested_at);`,
  RUN_INDEX_SCHEMA,
  SIGNED_OUT_SCHEMA,
  // As the RunLedger's small keyed tables: each row in its key's own b-tree (WITHOUT ROWID), so
  // a claim, its confirmation and a run's index entry write one b-tree less.
  `CREATE TABLE target_claim_keyed (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     run_id TEXT NOT NULL,
     intent TEXT NOT NULL,
     call_id TEXT NOT NULL,
     claimed_at INTEGER NOT NULL,
     tenant TEXT,
     lease_expires_at INTEGER,
     confirmed INTEGER NOT NULL DEFAULT 1,
     PRIMARY KEY (tool, target, run_id, intent)
   ) WITHOUT ROWID;
   INSERT INTO target_claim_keyed (tool, target, run_id, intent, call_id, claimed_at, tenant,
     lease_expires_at, confirmed)
   SELECT tool, target, run_id, intent, call_id, claimed_at, tenant, lease_expires_at, confirmed
     FROM target_claim;
   DROP TABLE target_claim;
   ALTER TABLE target_claim_keyed RENAME TO target_claim;
   CREATE INDEX target_claim_lease ON target_claim (lease_expires_at) WHERE confirmed = 0;
   CREATE TABLE approval_index_keyed (
     approval_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     rule TEXT NOT NULL,
     status TEXT NOT NULL,
     requested_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO approval_index_keyed
     (approval_id, run_id, tool, rule, status, requested_at, expires_at)
   SELECT approval_id, run_id, tool, rule, status, requested_at, expires_at FROM approval_index
     WHERE approval_id IS NOT NULL;
   DROP TABLE approval_index;
   ALTER TABLE approval_index_keyed RENAME TO approval_index;
   CREATE INDEX approval_index_by_status ON approval_index (status, requested_at);
   CREATE TABLE run_index_keyed (
     run_id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO run_index_keyed (run_id, created_at)
     SELECT run_id, created_at FROM run_index WHERE run_id IS NOT NULL;
   DROP TABLE run_index;
   ALTER TABLE run_index_keyed RENAME TO run_index;
   CREATE INDEX run_index_by_created ON run_index (created_at);
   CREATE TABLE console_signed_out_keyed (
     session_id TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO console_signed_out_keyed (session_id, expires_at)
     SELECT session_id, expires_at FROM console_signed_out WHERE session_id IS NOT NULL;
   DROP TABLE console_signed_out;
   ALTER TABLE console_signed_out_keyed RENAME TO console_signed_out;
   CREATE INDEX console_signed_out_expiry ON console_signed_out (expires_at);`,
  RUN_INDEX_OPEN_SCHEMA,
  APPROVAL_PAGED_SCHEMA,
];
