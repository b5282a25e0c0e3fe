/**
 * The schema a ledger's migration steps leave, read back from SQLite itself (`node:sqlite`):
 * `npm run schema` writes it to src/ledger/schema/fresh-schema.ts, and a test checks the file is
 * current and builds the same database as the steps.
 */
import { DatabaseSync } from "node:sqlite";

/** The table migrate() keeps its step count in; not part of a step's schema. */
const VERSION_TABLE = "schema_version";

/**
 * Every CREATE statement of a database, tables first, each kind in the order it was created;
 * SQLite's own tables (sqlite_sequence, automatic indexes) are left to SQLite.
 */
export function schemaOf(db: DatabaseSync): string[] {
  const rows = db
    .prepare(
      `SELECT sql FROM sqlite_master
       WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name != ?
       ORDER BY type = 'index', rowid`,
    )
    .all(VERSION_TABLE) as { sql: string }[];
  return rows.map((r) => `${r.sql};`);
}

/**
 * The schema an empty database has after `scripts` run on it one after the other, as the
 * statements that build it in one script.
 */
export function schemaAfter(scripts: readonly string[]): string[] {
  const db = new DatabaseSync(":memory:");
  for (const script of scripts) db.exec(script);
  const schema = schemaOf(db);
  db.close();
  return schema;
}

function literal(name: string, what: string, steps: readonly string[]): string {
  const sql = schemaAfter(steps).join("\n");
  if (sql.includes("`") || sql.includes("${"))
    throw new Error(
      `${name}: the SQL holds a backtick or \${, which the template literal would read`,
    );
  return [
    `/** The ${what}'s schema after its ${steps.length} migration steps. */`,
    `export const ${name}: FreshSchema = {`,
    `  steps: ${steps.length},`,
    `  sql: \`${sql}\`,`,
    "};",
  ].join("\n");
}

/**
 * The source of src/ledger/schema/fresh-schema.ts for the three objects' steps.
 */
export function renderFreshSchemas(
  run: readonly string[],
  claims: readonly string[],
  tenantIndex: readonly string[],
): string {
  return [
    "/**",
    " * Written by `npm run schema` (scripts/schema.ts) from the steps in migrations.ts, never by",
    " * hand: the schema the steps leave, which a new object builds in one step instead of running",
    " * each step in turn. test/repo/fresh-schema.test.ts fails while it is out of date.",
    " */",
    'import type { FreshSchema } from "./migrate.ts";',
    "",
    literal("FRESH_RUN_SCHEMA", "RunLedger", run),
    "",
    literal("FRESH_CLAIMS_SCHEMA", "TargetClaims object", claims),
    "",
    literal("FRESH_TENANT_INDEX_SCHEMA", "TenantIndex object", tenantIndex),
    "",
  ].join("\n");
}
