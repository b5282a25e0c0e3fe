/**
 * Written by `npm run schema` (scripts/schema.ts) from the steps in migrations.ts, never by
 * hand: the schema the steps leave, which a new object builds in one step instead of running
 * each step in turn. test/repo/fresh-schema.test.ts fails while it is out of date.
 */
import type { FreshSchema } from "./migrate.ts";

/** The RunLedger's schema after its 7 migration steps. */
export const FRESH_RUN_SCHEMA: FreshSchema = {
  steps: 7,
  sql: `CREATE TABLE run (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     tenant TEXT NOT NULL,
     run_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     deadline_at INTEGER NOT NULL,
     halted_at INTEGER,
     halt_reason TEXT,
     mutations_used INTEGER NOT NULL DEFAULT 0,
     paid_used INTEGER NOT NULL DEFAULT 0,
     max_mutations INTEGER NOT NULL,
     max_paid_calls INTEGER NOT NULL,
     allowed_tools TEXT,
     tool_caps TEXT,
     opened_by TEXT,
     indexed_at INTEGER,
     local INTEGER NOT NULL DEFAULT 0,
     counted_through INTEGER NOT NULL DEFAULT 0,
     refusals_counted TEXT
   );
CREATE TABLE open_call (
     seq INTEGER PRIMARY KEY,
     call_id TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL
   , rounds INTEGER NOT NULL DEFAULT 0, awaiting INTEGER NOT NULL DEFAULT 0);
CREATE TABLE tool_use (tool TEXT PRIMARY KEY, used INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE target_use (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     used INTEGER NOT NULL,
     PRIMARY KEY (tool, target)
   ) WITHOUT ROWID;
CREATE TABLE decision_count (decision TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE idempotency_key (
     key TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     phase TEXT NOT NULL CHECK (phase IN ('in_flight', 'done', 'retryable')),
     call_id TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL,
     status INTEGER,
     body TEXT,
     expires_at INTEGER NOT NULL
   , upstream_idempotent INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE audit (
     seq INTEGER PRIMARY KEY,
     call_id TEXT NOT NULL,
     at INTEGER NOT NULL,
     tool TEXT,
     form TEXT,
     decision TEXT NOT NULL,
     reason TEXT,
     status INTEGER,
     idempotency_key TEXT,
     fingerprint TEXT,
     cache TEXT,
     duration_ms INTEGER,
     mutations_used INTEGER NOT NULL,
     paid_used INTEGER NOT NULL,
     content_type TEXT,
     payload TEXT NOT NULL,
     payload_truncated INTEGER NOT NULL,
     lease_expires_at INTEGER,
     approval_id TEXT,
     actor TEXT,
     note TEXT,
     resolves INTEGER,
     of INTEGER,
     prev TEXT NOT NULL,
     hash TEXT NOT NULL,
     uses INTEGER,
     principal TEXT
   , upstream TEXT);
CREATE TRIGGER audit_appended AFTER INSERT ON audit
     WHEN NEW.decision = 'pending' OR NEW.of IS NOT NULL BEGIN
     INSERT INTO open_call (seq, call_id, lease_expires_at)
       SELECT NEW.seq, NEW.call_id, COALESCE(NEW.lease_expires_at, 0)
       WHERE NEW.decision = 'pending';
     DELETE FROM open_call WHERE NEW.of IS NOT NULL AND seq = NEW.of;
   END;
CREATE TABLE approval (
     id TEXT PRIMARY KEY,
     tool TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     policy_version TEXT NOT NULL,
     rule TEXT NOT NULL,
     args TEXT NOT NULL,
     idempotency_key TEXT,
     status TEXT NOT NULL
       CHECK (status IN ('pending', 'approved', 'denied', 'consumed', 'expired')),
     requested_at INTEGER NOT NULL,
     requested_by_call TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     decided_at INTEGER,
     decided_by TEXT,
     note TEXT,
     consumed_by_call TEXT
   , proposer TEXT, edited_args TEXT, edited_fingerprint TEXT, quorum INTEGER NOT NULL DEFAULT 1, origin TEXT, expiry_unreported INTEGER NOT NULL DEFAULT 0);
CREATE TABLE escalation_resolution (
     seq INTEGER PRIMARY KEY,
     resolution TEXT NOT NULL CHECK (resolution IN ('retry_allowed', 'closed')),
     note TEXT,
     actor TEXT NOT NULL,
     resolved_at INTEGER NOT NULL
   );
CREATE TABLE audit_segment (
     first_seq INTEGER PRIMARY KEY,
     last_seq INTEGER NOT NULL,
     head_hash TEXT NOT NULL,
     r2_key TEXT NOT NULL,
     archived_at INTEGER NOT NULL,
     trimmed INTEGER NOT NULL DEFAULT 0
   );
CREATE TABLE approval_vote (
     approval_id TEXT NOT NULL,
     decider TEXT NOT NULL,
     actor TEXT NOT NULL,
     at INTEGER NOT NULL,
     PRIMARY KEY (approval_id, decider)
   ) WITHOUT ROWID;
CREATE TABLE refusal_kept (
     reason TEXT NOT NULL,
     tool TEXT NOT NULL,
     PRIMARY KEY (reason, tool)
   ) WITHOUT ROWID;
CREATE INDEX audit_escalations ON audit (seq) WHERE decision = 'escalate';
CREATE INDEX approval_by_call ON approval (tool, fingerprint, requested_at);
CREATE INDEX approval_by_status ON approval (status, requested_at);
CREATE INDEX approval_by_edit ON approval (tool, edited_fingerprint)
     WHERE edited_fingerprint IS NOT NULL;`,
};

/** The TargetClaims object's schema after its 1 migration steps. */
export const FRESH_CLAIMS_SCHEMA: FreshSchema = {
  steps: 1,
  sql: `CREATE TABLE target_claim (
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
};

/** The TenantIndex object's schema after its 1 migration steps. */
export const FRESH_TENANT_INDEX_SCHEMA: FreshSchema = {
  steps: 1,
  sql: `CREATE TABLE approval_index (
     approval_id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     rule TEXT NOT NULL,
     status TEXT NOT NULL,
     requested_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     paged INTEGER NOT NULL DEFAULT 0
   ) WITHOUT ROWID;
CREATE TABLE run_index (
     run_id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     opened_by TEXT,
     ends_at INTEGER
   ) WITHOUT ROWID;
CREATE TABLE console_signed_out (
     session_id TEXT PRIMARY KEY,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
CREATE INDEX approval_index_by_status ON approval_index (status, requested_at);
CREATE INDEX run_index_by_created ON run_index (created_at);
CREATE INDEX run_index_open ON run_index (ends_at);
CREATE INDEX run_index_open_by ON run_index (opened_by, ends_at);
CREATE INDEX console_signed_out_expiry ON console_signed_out (expires_at);`,
};
