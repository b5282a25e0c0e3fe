/**
 * The run's rare tables (RARE_RUN_TABLES in migrations.ts: approvals, resolved escalations,
 * archived segments), which a new object does not build: most runs never write them, and
 * every run's first commit is smaller without them. The first write that needs one builds
 * them all, in that write's transaction; until then a reader finds none of their rows. Whether
 * they exist is read once per object from `sqlite_master`, then kept: only the object writes
 * its storage. A transaction that fails forgets it (kept.ts), as a rolled-back build is gone.
 */
import { FRESH_RUN_SCHEMA } from "./fresh-schema.ts";
import type { Kept } from "./kept.ts";
import { migrate } from "./migrate.ts";
import { MIGRATIONS, RARE_RUN_TABLES } from "./migrations.ts";

/** Per object's storage: whether its rare tables exist, once known. */
const built = new WeakMap<SqlStorage, boolean>();

/** Whether the rare tables of the run in `sql` exist. */
export function hasRareTables(sql: SqlStorage): boolean {
  let known = built.get(sql);
  if (known === undefined) {
    const [first] = RARE_RUN_TABLES;
    known =
      sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", first).toArray()
        .length > 0;
    built.set(sql, known);
  }
  return known;
}

/** Build the rare tables unless they exist; inside the write's transaction. */
export function ensureRareTables(sql: SqlStorage): void {
  if (hasRareTables(sql)) return;
  sql.exec(FRESH_RUN_SCHEMA.rare);
  built.set(sql, true);
}

/**
 * Whether the run's storage holds its schema, built at the object's first write: reading
 * `sqlite_master` writes nothing, so a run only ever read leaves no database behind.
 */
export class RunStorage {
  /** Whether the schema exists. */
  built: boolean;
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    this.built =
      sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
        .toArray().length > 0;
  }

  /** Build the schema unless it exists (a write is about to need it). */
  build(): void {
    if (this.built) return;
    buildRunStorage(this.sql);
    this.built = true;
  }
}

/**
 * Bring the run's storage to the current schema; answers whether it was built just now (then
 * without its rare tables, and holding nothing).
 */
export function buildRunStorage(sql: SqlStorage): boolean {
  const fresh = migrate(sql, MIGRATIONS, FRESH_RUN_SCHEMA);
  if (fresh) built.set(sql, false);
  return fresh;
}

/** What is kept of `sql`'s rare tables, forgotten when a transaction fails. */
export function rareTablesKept(sql: SqlStorage): Kept {
  return { forget: () => built.delete(sql) };
}
