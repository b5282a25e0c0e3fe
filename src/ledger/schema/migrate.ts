/**
 * How an object applies a ledger's migration steps (migrations.ts, tenant-migrations.ts): the
 * steps it lacks, or, for a new database, the schema they leave in one script.
 */

/** What a set of steps leaves, as one script (written by `npm run schema`: fresh-schema.ts). */
export interface FreshSchema {
  /** How many steps it stands for. */
  steps: number;
  /** The CREATE statements a new object runs. */
  sql: string;
}

/**
 * Apply every step not yet applied; the step count is kept in its own table. A new database
 * is built from `fresh` in one script when it stands for exactly these steps: the schema the
 * steps leave (a test builds both and compares). Answers whether it was.
 */
export function migrate(sql: SqlStorage, steps: readonly string[], fresh: FreshSchema): boolean {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  if (row === undefined && fresh.steps === steps.length) {
    sql.exec(fresh.sql);
    sql.exec("INSERT INTO schema_version (version) VALUES (?)", steps.length);
    return true;
  }
  const applied = row?.version ?? 0;
  if (row === undefined) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  steps.slice(applied).forEach((step, i) => {
    sql.exec(step);
    sql.exec("UPDATE schema_version SET version = ?", applied + i + 1);
  });
  return false;
}
