/**
 * The RunLedger's migration steps (the TenantLedger's are in tenant-migrations.ts; an object
 * applies either with migrate.ts).
 */
import { AUDIT_APPENDED, OPEN_CALLS_FOLLOWED } from "./audit-triggers.ts";

/**
 * The RunLedger's SQLite schema, as numbered, append-only steps. Each runs once, in
 * order, in the object's constructor; a shipped step is never edited, only followed.
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
     max_paid_calls INTEGER NOT NULL
   );
   CREATE TABLE idempotency_key (
     key TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     phase TEXT NOT NULL CHECK (phase IN ('in_flight', 'done', 'retryable')),
     call_id TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL,
     status INTEGER,
     body TEXT,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX idempotency_key_expiry ON idempotency_key (expires_at);
   CREATE TABLE audit (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     call_id TEXT NOT NULL UNIQUE,
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
     payload_truncated INTEGER NOT NULL
   );`,
  // The run's own limits as JSON (allowed_tools NULL: every tool the policy allows;
  // tool_caps NULL on runs created before this step: the policy's), and what the run has
  // used of each tool and of each per-target cap.
  `ALTER TABLE run ADD COLUMN allowed_tools TEXT;
   ALTER TABLE run ADD COLUMN tool_caps TEXT;
   CREATE TABLE tool_use (tool TEXT PRIMARY KEY, used INTEGER NOT NULL);
   CREATE TABLE target_use (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     used INTEGER NOT NULL,
     PRIMARY KEY (tool, target)
   );`,
  // Status counts per decision and the escalations list read this index, not the audit
  // rows with their payloads, so they stay cheap as a run grows.
  "CREATE INDEX audit_by_decision ON audit (decision, seq);",
  // Who opened the run (the key id, `development` for the development key), so only it or an
  // operator may change its limits; and the lease of a pending entry, after which the alarm
  // settles it as `abandoned`.
  `ALTER TABLE run ADD COLUMN opened_by TEXT;
   ALTER TABLE audit ADD COLUMN lease_expires_at INTEGER;
   CREATE INDEX audit_pending_lease ON audit (lease_expires_at) WHERE decision = 'pending';`,
  // Approvals a policy rule asked for, each bound to the call's tool, payload fingerprint and
  // policy version, single use; the audit entries that ask, decide and use one name it, and an
  // operator's entries name who acted and why. Escalations an operator resolved.
  `CREATE TABLE approval (
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
   ALTER TABLE audit ADD COLUMN approval_id TEXT;
   ALTER TABLE audit ADD COLUMN actor TEXT;
   ALTER TABLE audit ADD COLUMN note TEXT;
   ALTER TABLE audit ADD COLUMN resolves INTEGER;
   CREATE TABLE escalation_resolution (
     seq INTEGER PRIMARY KEY,
     resolution TEXT NOT NULL CHECK (resolution IN ('retry_allowed', 'closed')),
     note TEXT,
     actor TEXT NOT NULL,
     resolved_at INTEGER NOT NULL
   );`,
  // The audit becomes append-only and hash-chained (src/ledger/audit-log.ts): an admitted
  // call's outcome is a second entry naming the first (`of`), so a call id may appear twice;
  // `prev` and `hash` chain the entries (rows written before this step get theirs in the
  // constructor). Counts per decision live in their own table, kept in the same transactions,
  // since an outcome entry supersedes its pending entry without changing it.
  `CREATE TABLE audit_chained (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
     prev TEXT,
     hash TEXT
   );
   INSERT INTO audit_chained (seq, call_id, at, tool, form, decision, reason, status,
     idempotency_key, fingerprint, cache, duration_ms, mutations_used, paid_used, content_type,
     payload, payload_truncated, lease_expires_at, approval_id, actor, note, resolves)
   SELECT seq, call_id, at, tool, form, decision, reason, status, idempotency_key, fingerprint,
     cache, duration_ms, mutations_used, paid_used, content_type, payload, payload_truncated,
     lease_expires_at, approval_id, actor, note, resolves FROM audit;
   DROP TABLE audit;
   ALTER TABLE audit_chained RENAME TO audit;
   CREATE INDEX audit_by_decision ON audit (decision, seq);
   CREATE INDEX audit_by_call ON audit (call_id, seq);
   CREATE INDEX audit_by_of ON audit (of) WHERE of IS NOT NULL;
   CREATE INDEX audit_pending_lease ON audit (lease_expires_at) WHERE decision = 'pending';
   CREATE TABLE decision_count (decision TEXT PRIMARY KEY, n INTEGER NOT NULL);
   INSERT INTO decision_count (decision, n) SELECT decision, COUNT(*) FROM audit GROUP BY decision;
   CREATE TABLE open_call (
     seq INTEGER PRIMARY KEY,
     call_id TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL
   );
   CREATE INDEX open_call_by_call ON open_call (call_id);
   CREATE INDEX open_call_by_lease ON open_call (lease_expires_at);
   INSERT INTO open_call (seq, call_id, lease_expires_at)
     SELECT seq, call_id, COALESCE(lease_expires_at, 0) FROM audit WHERE decision = 'pending';`,
  // When the run was written to its tenant's run index: NULL until then, so a run whose
  // indexing failed (or that predates the index) is indexed on its next call.
  "ALTER TABLE run ADD COLUMN indexed_at INTEGER;",
  // The audit archive (src/ledger/audit-archive.ts): whether the run was created under local
  // development (its archive may then be signed with the development key), and each segment
  // written to AUDIT_ARCHIVE with how many of its entries were trimmed from `audit` since.
  `ALTER TABLE run ADD COLUMN local INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE audit_segment (
     first_seq INTEGER PRIMARY KEY,
     last_seq INTEGER NOT NULL,
     head_hash TEXT NOT NULL,
     r2_key TEXT NOT NULL,
     archived_at INTEGER NOT NULL,
     trimmed INTEGER NOT NULL DEFAULT 0
   );`,
  // Indexes no query reads any more, which every append paid for: a call's open entry is found
  // through open_call, by call id and by lease, and nothing looks an entry up by `of`.
  `DROP INDEX audit_by_call;
   DROP INDEX audit_by_of;
   DROP INDEX audit_pending_lease;`,
  // The tables kept beside the log follow each entry inside SQLite, as part of the entry's own
  // insert: its call counted under its decision (an outcome moves its call out of pending),
  // and the call's open entry listed while it is pending, dropped by its outcome.
  AUDIT_APPENDED,
  // Small tables keyed by text keep each row in their key's own b-tree (WITHOUT ROWID): a write
  // updates one b-tree instead of the table and its key's index, and a new run's database has a
  // page less for each. The audit's decision index held every entry for one query, the
  // escalations (operator.ts, audit-trim.ts): it now holds the escalations alone, so any
  // other append writes no index entry.
  // The trigger names decision_count, so it is dropped while that table is rebuilt.
  `DROP TRIGGER audit_appended;
   CREATE TABLE tool_use_keyed (tool TEXT PRIMARY KEY, used INTEGER NOT NULL) WITHOUT ROWID;
   INSERT INTO tool_use_keyed (tool, used) SELECT tool, used FROM tool_use WHERE tool IS NOT NULL;
   DROP TABLE tool_use;
   ALTER TABLE tool_use_keyed RENAME TO tool_use;
   CREATE TABLE target_use_keyed (
     tool TEXT NOT NULL,
     target TEXT NOT NULL,
     used INTEGER NOT NULL,
     PRIMARY KEY (tool, target)
   ) WITHOUT ROWID;
   INSERT INTO target_use_keyed (tool, target, used) SELECT tool, target, used FROM target_use;
   DROP TABLE target_use;
   ALTER TABLE target_use_keyed RENAME TO target_use;
   CREATE TABLE decision_count_keyed (decision TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
   INSERT INTO decision_count_keyed (decision, n)
     SELECT decision, n FROM decision_count WHERE decision IS NOT NULL;
   DROP TABLE decision_count;
   ALTER TABLE decision_count_keyed RENAME TO decision_count;
   DROP INDEX audit_by_decision;
   CREATE INDEX audit_escalations ON audit (seq) WHERE decision = 'escalate';
   ${AUDIT_APPENDED}`,
  // A call is in open_call only while its tool runs, so the table holds a run's calls in flight
  // and no more: a scan finds one sooner than its two indexes cost each pending entry and its
  // outcome (a row and two index entries written, then deleted). Idempotency keys are kept in
  // their key's b-tree as the small keyed tables are, so a new key writes one b-tree less.
  `DROP INDEX open_call_by_call;
   DROP INDEX open_call_by_lease;
   CREATE TABLE idempotency_key_keyed (
     key TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     phase TEXT NOT NULL CHECK (phase IN ('in_flight', 'done', 'retryable')),
     call_id TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL,
     status INTEGER,
     body TEXT,
     expires_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO idempotency_key_keyed
     (key, fingerprint, phase, call_id, lease_expires_at, status, body, expires_at)
   SELECT key, fingerprint, phase, call_id, lease_expires_at, status, body, expires_at
     FROM idempotency_key WHERE key IS NOT NULL;
   DROP TABLE idempotency_key;
   ALTER TABLE idempotency_key_keyed RENAME TO idempotency_key;
   CREATE INDEX idempotency_key_expiry ON idempotency_key (expires_at);`,
  // An entry's seq is given, the chain's tip plus one (audit-log.ts), and the last entry is never
  // trimmed, so none is used twice without AUTOINCREMENT, whose line in sqlite_sequence each
  // append wrote too: a row and a page more. Dropping the table drops its index and trigger.
  `CREATE TABLE audit_seq (
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
     prev TEXT,
     hash TEXT
   );
   INSERT INTO audit_seq SELECT * FROM audit;
   DROP TABLE audit;
   ALTER TABLE audit_seq RENAME TO audit;
   CREATE INDEX audit_escalations ON audit (seq) WHERE decision = 'escalate';
   ${AUDIT_APPENDED}`,
  // Calls per decision are counted from the log and folded into decision_count every so many
  // entries and before a trim (audit-log.ts), so an entry no longer writes its count's row; the
  // run's row holds the last entry folded. The trigger keeps the open calls alone.
  `ALTER TABLE run ADD COLUMN counted_through INTEGER NOT NULL DEFAULT 0;
   UPDATE run SET counted_through = COALESCE((SELECT MAX(seq) FROM audit), 0);
   DROP TRIGGER audit_appended;
   ${OPEN_CALLS_FOLLOWED}`,
  // An entry carries the uses of its tool it adds (a charged call 1, its withdrawal -1), folded
  // into tool_use with the decision counts (audit-log.ts): a call writes no tool_use row.
  "ALTER TABLE audit ADD COLUMN uses INTEGER;",
  // A run's keys are no more than its mutations: the alarm scans them, and a key writes one b-tree.
  "DROP INDEX idempotency_key_expiry;",
  // Past the policy's entry cap a refusal is counted per reason on the run's row (a JSON object
  // of counts) instead of appended: refusal-keep.ts.
  "ALTER TABLE run ADD COLUMN refusals_counted TEXT;",
];

/**
 * The RunLedger's tables most runs never write: approvals, resolved escalations and archived
 * segments. A new object does not build them (rare-tables.ts builds them at their first write),
 * so every run's first commit is smaller. A later step that changes one of them must first
 * create all three where they are missing (`CREATE TABLE IF NOT EXISTS`, as the steps before
 * it leave them): rare-tables.ts reads whether the first exists as whether all three do.
 */
export const RARE_RUN_TABLES: readonly string[] = [
  "approval",
  "escalation_resolution",
  "audit_segment",
];
