/**
 * The RunLedger's migration steps (the TargetClaims' and TenantIndex's are in
 * tenant-migrations.ts; an object applies its own with migrate.ts).
 */
/**
 * The RunLedger's SQLite schema, as numbered, append-only steps. Each runs once, in
 * order, in the object's constructor; a shipped step is never edited, only followed.
 *
 * Step 1 is the whole schema. The tables keyed by text are WITHOUT ROWID: each row lives in its
 * key's own b-tree, so a write touches one b-tree instead of a table and its key's index. The
 * audit's `seq` is given by the chain (the last entry's plus one: audit-log.ts), so it needs no
 * AUTOINCREMENT and its line in sqlite_sequence. The audit is indexed only where a query reads
 * it: escalations (operator.ts, audit-trim.ts). The calls still open follow each entry in the
 * insert's own trigger: a pending entry lists its call, its outcome drops it.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE run (
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
   );
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
   ) WITHOUT ROWID;
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
   );
   CREATE TRIGGER audit_appended AFTER INSERT ON audit
     WHEN NEW.decision = 'pending' OR NEW.of IS NOT NULL BEGIN
     INSERT INTO open_call (seq, call_id, lease_expires_at)
       SELECT NEW.seq, NEW.call_id, COALESCE(NEW.lease_expires_at, 0)
       WHERE NEW.decision = 'pending';
     DELETE FROM open_call WHERE NEW.of IS NOT NULL AND seq = NEW.of;
   END;
   CREATE INDEX audit_escalations ON audit (seq) WHERE decision = 'escalate';
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
   );
   CREATE INDEX approval_by_call ON approval (tool, fingerprint, requested_at);
   CREATE INDEX approval_by_status ON approval (status, requested_at);
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
   );`,
  // What the tool answered, on the outcome entry of a call its answer failed or escalated.
  "ALTER TABLE audit ADD COLUMN upstream TEXT",
  // Who may decide: the person whose agent proposed the call (`proposer`, the call's
  // principal as RFC 8785 JSON), an approver's edit of the arguments (the grant then binds
  // `edited_fingerprint`), the approvals the rule asked for when it was opened (`quorum`), and
  // each distinct approval so far.
  `ALTER TABLE approval ADD COLUMN proposer TEXT;
   ALTER TABLE approval ADD COLUMN edited_args TEXT;
   ALTER TABLE approval ADD COLUMN edited_fingerprint TEXT;
   ALTER TABLE approval ADD COLUMN quorum INTEGER NOT NULL DEFAULT 1;
   CREATE INDEX approval_by_edit ON approval (tool, edited_fingerprint)
     WHERE edited_fingerprint IS NOT NULL;
   CREATE TABLE approval_vote (
     approval_id TEXT NOT NULL,
     decider TEXT NOT NULL,
     actor TEXT NOT NULL,
     at INTEGER NOT NULL,
     PRIMARY KEY (approval_id, decider)
   ) WITHOUT ROWID;`,
  // The origin the approval was asked at: the link its notifications carry when PUBLIC_URL is
  // unset, an expiry's among them, sent by the alarm with no request to read it from. An
  // approval the alarm expired is `expiry_unreported` until the call's next proposal is told.
  `ALTER TABLE approval ADD COLUMN origin TEXT;
   ALTER TABLE approval ADD COLUMN expiry_unreported INTEGER NOT NULL DEFAULT 0;`,
  // Whether the key's upstream honours it (the contract's `upstream.idempotent` when the key was
  // last sent): a call abandoned mid-way is handed to a retry only then (run/abandon.ts). A key
  // kept from before says it does not, the side on which nothing is sent twice.
  "ALTER TABLE idempotency_key ADD COLUMN upstream_idempotent INTEGER NOT NULL DEFAULT 0",
  // The refusals kept in full past the run's entry cap: one per reason and tool, a tool no
  // contract has being '' (run/refusal-keep.ts), so the table is bounded by the contracts.
  `CREATE TABLE refusal_kept (
     reason TEXT NOT NULL,
     tool TEXT NOT NULL,
     PRIMARY KEY (reason, tool)
   ) WITHOUT ROWID;`,
  // The input rounds of an open call whose tool asked the client for input (MCP 2026-07-28):
  // how many the fence has handed out, and whether the last one is still unanswered, so each
  // round's request state continues the call once (run/rounds.ts).
  `ALTER TABLE open_call ADD COLUMN rounds INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE open_call ADD COLUMN awaiting INTEGER NOT NULL DEFAULT 0;`,
];
