import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { renderFreshSchemas, schemaAfter, schemaOf } from "../../scripts/lib/schema.ts";
import { AUDIT_COLUMNS } from "../../src/ledger/audit/audit-log.ts";
import {
  FRESH_CLAIMS_SCHEMA,
  FRESH_RUN_SCHEMA,
  FRESH_TENANT_INDEX_SCHEMA,
} from "../../src/ledger/schema/fresh-schema.ts";
import { type FreshSchema, migrate } from "../../src/ledger/schema/migrate.ts";
import { MIGRATIONS } from "../../src/ledger/schema/migrations.ts";
import {
  CLAIMS_MIGRATIONS,
  TENANT_INDEX_MIGRATIONS,
} from "../../src/ledger/schema/tenant-migrations.ts";

const FILE = resolve(import.meta.dirname, "../../src/ledger/schema/fresh-schema.ts");

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
  it("src/ledger/schema/fresh-schema.ts is what `npm run schema` writes from the steps now", () => {
    expect(readFileSync(FILE, "utf8")).toBe(
      renderFreshSchemas(MIGRATIONS, CLAIMS_MIGRATIONS, TENANT_INDEX_MIGRATIONS),
    );
  });

  for (const [name, steps, fresh] of LEDGERS) {
    it(`${name}: the script builds the database the ${steps.length} steps build`, () => {
      expect(fresh.steps).toBe(steps.length);
      expect(schemaAfter([fresh.sql])).toEqual(schemaAfter(steps));
    });

    it(`${name}: migrate() builds a new database from it and records every step as applied`, () => {
      const db = new DatabaseSync(":memory:");
      expect(migrate(storageOf(db), steps, fresh)).toBe(true);
      expect(versionOf(db)).toBe(steps.length);
      expect(schemaOf(db)).toEqual(schemaAfter([fresh.sql]));
      // Run again (a restarted object): nothing left to apply, nothing changes.
      expect(migrate(storageOf(db), steps, fresh)).toBe(false);
      expect(versionOf(db)).toBe(steps.length);
      expect(schemaOf(db)).toEqual(schemaAfter(steps));
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
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").all(),
    ).toEqual([]);
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
    };
    migrate(storageOf(db), MIGRATIONS, stale);
    expect(schemaOf(db)).toEqual(schemaAfter(MIGRATIONS));
  });
});
