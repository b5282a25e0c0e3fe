import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { renderFreshSchemas, schemaAfter, schemaOf, tableOf } from "../../scripts/lib/schema.ts";
import { AUDIT_COLUMNS } from "../../src/ledger/audit-log.ts";
import {
  FRESH_CLAIMS_SCHEMA,
  FRESH_RUN_SCHEMA,
  FRESH_TENANT_INDEX_SCHEMA,
} from "../../src/ledger/fresh-schema.ts";
import { type FreshSchema, migrate } from "../../src/ledger/migrate.ts";
import { MIGRATIONS, RARE_RUN_TABLES } from "../../src/ledger/migrations.ts";
import { CLAIMS_MIGRATIONS, TENANT_INDEX_MIGRATIONS } from "../../src/ledger/tenant-migrations.ts";

const FILE = resolve(import.meta.dirname, "../../src/ledger/fresh-schema.ts");

/** The part of a Durable Object's `SqlStorage` migrate() uses, over node:sqlite. */
function storageOf(db: DatabaseSync): SqlStorage {
  const exec = (query: string, ...values: SqlStorageValue[]) => {
    const q = query.trim();
    const bindings = values as SQLInputValue[];
    let rows: unknown[] = [];
    if (q.startsWith("SELECT")) rows = db.prepare(q).all(...bindings);
    else if (bindings.length > 0) db.prepare(q).run(...bindings);
    else db.exec(q);
    return { toArray: () => rows };
  };
  return { exec } as unknown as SqlStorage;
}

function versionOf(db: DatabaseSync): number {
  return (db.prepare("SELECT version FROM schema_version").get() as { version: number }).version;
}

const LEDGERS: [string, readonly string[], FreshSchema][] = [
  ["RunLedger", MIGRATIONS, FRESH_RUN_SCHEMA],
  ["TargetClaims", CLAIMS_MIGRATIONS, FRESH_CLAIMS_SCHEMA],
  ["TenantIndex", TENANT_INDEX_MIGRATIONS, FRESH_TENANT_INDEX_SCHEMA],
];

describe("a new object's schema in one step", () => {
  it("src/ledger/fresh-schema.ts is what `npm run schema` writes from the steps now", () => {
    expect(readFileSync(FILE, "utf8")).toBe(
      renderFreshSchemas(MIGRATIONS, CLAIMS_MIGRATIONS, TENANT_INDEX_MIGRATIONS, RARE_RUN_TABLES),
    );
  });

  for (const [name, steps, fresh] of LEDGERS) {
    it(`${name}: the script and its rare tables build the database the ${steps.length} steps build`, () => {
      expect(fresh.steps).toBe(steps.length);
      // The same statements; the rare tables come last in the order SQLite keeps.
      expect(schemaAfter([fresh.sql, fresh.rare]).toSorted()).toEqual(
        schemaAfter(steps).toSorted(),
      );
    });

    it(`${name}: migrate() builds a new database from it and records every step as applied`, () => {
      const db = new DatabaseSync(":memory:");
      expect(migrate(storageOf(db), steps, fresh)).toBe(true);
      expect(versionOf(db)).toBe(steps.length);
      expect(schemaOf(db)).toEqual(schemaAfter([fresh.sql]));
      // Run again (a restarted object): nothing left to apply, nothing changes.
      expect(migrate(storageOf(db), steps, fresh)).toBe(false);
      expect(versionOf(db)).toBe(steps.length);
      expect(schemaOf(db)).toEqual(schemaAfter([fresh.sql]));
      // Its rare tables, built at their first write, complete it.
      db.exec(fresh.rare);
      expect(schemaOf(db).toSorted()).toEqual(schemaAfter(steps).toSorted());
    });

    it(`${name}: a database built by the steps takes a later step, and only that one`, () => {
      const later = [...steps, "CREATE TABLE later_step (x INTEGER);"];
      const db = new DatabaseSync(":memory:");
      migrate(storageOf(db), steps, fresh);
      db.exec("CREATE TABLE IF NOT EXISTS marker (x INTEGER); INSERT INTO marker VALUES (1);");
      expect(migrate(storageOf(db), later, fresh)).toBe(false);
      expect(versionOf(db)).toBe(later.length);
      expect(schemaOf(db)).toContain("CREATE TABLE later_step (x INTEGER);");
      // The steps it had were not run again: its rows are still there.
      expect(db.prepare("SELECT x FROM marker").all()).toEqual([{ x: 1 }]);
    });
  }

  it("a new run's database has no sqlite_sequence: no table of it counts its rows there", () => {
    const db = new DatabaseSync(":memory:");
    migrate(storageOf(db), MIGRATIONS, FRESH_RUN_SCHEMA);
    db.exec(FRESH_RUN_SCHEMA.rare);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").all(),
    ).toEqual([]);
  });

  it("a new run's object leaves out exactly the rare tables, with their indexes", () => {
    const made = (sql: string) => new Set(schemaAfter([sql]).map(tableOf));
    expect([...made(FRESH_RUN_SCHEMA.rare)].sort()).toEqual([...RARE_RUN_TABLES].sort());
    for (const table of RARE_RUN_TABLES) expect(made(FRESH_RUN_SCHEMA.sql).has(table)).toBe(false);
    expect(made(FRESH_RUN_SCHEMA.sql)).toContain("audit");
    expect(FRESH_RUN_SCHEMA.rare).toContain("CREATE INDEX approval_by_status");
    expect(FRESH_CLAIMS_SCHEMA.rare).toBe("");
    expect(FRESH_TENANT_INDEX_SCHEMA.rare).toBe("");
  });

  it("an audit append binds every column of the audit table, in the table's order", () => {
    const db = new DatabaseSync(":memory:");
    migrate(storageOf(db), MIGRATIONS, FRESH_RUN_SCHEMA);
    const columns = db.prepare("SELECT name FROM pragma_table_info('audit')").all();
    expect(columns.map((c) => c.name)).toEqual([...AUDIT_COLUMNS]);
  });

  it("a script that stands for other steps is not used: the steps run instead", () => {
    const db = new DatabaseSync(":memory:");
    const stale: FreshSchema = {
      steps: MIGRATIONS.length + 1,
      sql: "CREATE TABLE stale (x INTEGER);",
      rare: "",
    };
    migrate(storageOf(db), MIGRATIONS, stale);
    expect(schemaOf(db)).toEqual(schemaAfter(MIGRATIONS));
  });
});
