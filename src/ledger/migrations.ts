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
];

/** Apply every step not yet applied; the step count is kept in its own table. */
export function migrate(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  const applied = row?.version ?? 0;
  if (row === undefined) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  MIGRATIONS.slice(applied).forEach((step, i) => {
    sql.exec(step);
    sql.exec("UPDATE schema_version SET version = ?", applied + i + 1);
  });
}
