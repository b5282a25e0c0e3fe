import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { renderFreshSchemas, schemaAfter, schemaOf, tableOf } from "../../scripts/lib/schema.ts";
import { AUDIT_COLUMNS, decisionCounts } from "../../src/ledger/audit-log.ts";
import { FRESH_RUN_SCHEMA, FRESH_TENANT_SCHEMA } from "../../src/ledger/fresh-schema.ts";
import { type FreshSchema, migrate } from "../../src/ledger/migrate.ts";
import { MIGRATIONS, RARE_RUN_TABLES } from "../../src/ledger/migrations.ts";
import { TENANT_MIGRATIONS } from "../../src/ledger/tenant-migrations.ts";
import { toolCalls } from "../../src/ledger/usage.ts";

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

/**
 * A database built by the steps before the one that holds `marker`, seeded by `seed`, then
 * taken through every step: the rows of `tables` before and after, and a reader of any table.
 */
function carriedThrough(
  steps: readonly string[],
  fresh: FreshSchema,
  { marker, seed, tables }: { marker: string; seed: string; tables: string[] },
) {
  const db = new DatabaseSync(":memory:");
  migrate(
    storageOf(db),
    steps.slice(
      0,
      steps.findIndex((step) => step.includes(marker)),
    ),
    fresh,
  );
  db.exec(seed);
  const rows = (table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
  const kept = tables.map(rows);
  migrate(storageOf(db), steps, fresh);
  return { db, rows, kept, after: tables.map(rows) };
}

/** The columns of `row` that `like` has: a row as an earlier schema held it. */
function pick(row: Record<string, unknown>, like: Record<string, unknown> | undefined) {
  return Object.fromEntries(Object.keys(like ?? {}).map((k) => [k, row[k]]));
}

/**
 * An INSERT of audit entries `[seq, decision, of]`, each a call of its own (`c{seq}`), with the
 * columns every step from the chained log on has.
 */
function auditEntries(...entries: [number, string, number | null][]): string {
  const rows = entries.map(
    ([seq, decision, of]) =>
      `(${seq}, 'c${seq}', ${seq}, '${decision}', 0, 0, '{}', 0, ${of ?? "NULL"}, 'p${seq}', 'h${seq}')`,
  );
  return `INSERT INTO audit (seq, call_id, at, decision, mutations_used, paid_used, payload,
    payload_truncated, of, prev, hash) VALUES ${rows.join(", ")};`;
}

/** The run's row, as the steps before the decision counts' move leave the table. */
const RUN_ROW = `INSERT INTO run (id, tenant, run_id, created_at, deadline_at, max_mutations,
  max_paid_calls) VALUES (1, 'default', 'r1', 1, 2, 3, 3);`;

const LEDGERS: [string, readonly string[], FreshSchema][] = [
  ["RunLedger", MIGRATIONS, FRESH_RUN_SCHEMA],
  ["TenantLedger", TENANT_MIGRATIONS, FRESH_TENANT_SCHEMA],
];

describe("a new object's schema in one step", () => {
  it("src/ledger/fresh-schema.ts is what `npm run schema` writes from the steps now", () => {
    expect(readFileSync(FILE, "utf8")).toBe(
      renderFreshSchemas(MIGRATIONS, TENANT_MIGRATIONS, RARE_RUN_TABLES),
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

    it(`${name}: a database from an earlier release takes only the steps it lacks`, () => {
      for (let k = 1; k < steps.length; k++) {
        const db = new DatabaseSync(":memory:");
        migrate(storageOf(db), steps.slice(0, k), fresh);
        expect(versionOf(db)).toBe(k);
        expect(schemaOf(db)).toEqual(schemaAfter(steps.slice(0, k)));
        migrate(storageOf(db), steps, fresh);
        expect(versionOf(db)).toBe(steps.length);
        expect(schemaOf(db)).toEqual(schemaAfter(steps));
      }
    });
  }

  it("RunLedger: the steps that rebuild the keyed tables keep their rows, and the calls are still counted", () => {
    const seed = `${RUN_ROW}
      INSERT INTO tool_use VALUES ('noop', 3), ('create_ticket', 1);
      INSERT INTO target_use VALUES ('ops_restart_service', 'api', 1);
      INSERT INTO idempotency_key VALUES ('k1', 'fp1', 'done', 'c0', 5, 200, '{"id":"T-1"}', 9),
        ('k2', 'fp2', 'in_flight', 'c9', 7, NULL, NULL, 8);
      INSERT INTO audit (call_id, at, decision, mutations_used, paid_used, payload, payload_truncated)
        VALUES ('c1', 1, 'allow', 0, 0, '{}', 0), ('c2', 2, 'escalate', 0, 0, '{}', 0);`;
    const tables = ["tool_use", "target_use", "decision_count", "idempotency_key"];
    const { db, kept, after } = carriedThrough(MIGRATIONS, FRESH_RUN_SCHEMA, {
      marker: "tool_use_keyed",
      seed,
      tables,
    });
    expect(versionOf(db)).toBe(MIGRATIONS.length);
    expect(after).toEqual(kept);
    expect(kept[3]).toHaveLength(2);
    expect(kept[2]).toEqual([
      { decision: "allow", n: 1 },
      { decision: "escalate", n: 1 },
    ]);
    db.exec(`INSERT INTO audit (call_id, at, decision, mutations_used, paid_used, payload, payload_truncated)
      VALUES ('c3', 3, 'allow', 0, 0, '{}', 0)`);
    expect(decisionCounts(storageOf(db))).toEqual({ allow: 2, escalate: 1 });
  });

  it("RunLedger: the step that drops the audit's AUTOINCREMENT keeps the log, its index and its trigger", () => {
    const seed = auditEntries([4, "pending", null], [5, "escalate", 4], [6, "allow", null]);
    const { db, rows, kept, after } = carriedThrough(MIGRATIONS, FRESH_RUN_SCHEMA, {
      marker: "audit_seq",
      seed,
      tables: ["audit", "decision_count", "open_call"],
    });
    // A later step gives every entry a `uses` column: null on those written before it.
    const [entries, ...others] = after;
    expect(entries).toEqual(kept[0]?.map((row) => ({ ...(row as object), uses: null })));
    expect(others).toEqual(kept.slice(1));
    expect(kept[0]).toHaveLength(3);
    const sequence = () =>
      db.prepare("SELECT name, seq FROM sqlite_sequence WHERE name = 'audit'").all();
    // The rows written before the step left the audit's line in sqlite_sequence; it goes with
    // the old table, and an append after the step writes none.
    expect(sequence()).toEqual([]);
    db.exec(auditEntries([7, "pending", null]));
    expect(sequence()).toEqual([]);
    // The trigger still keeps the open calls, and the escalations keep their index.
    expect(rows("open_call")).toEqual([{ seq: 7, call_id: "c7", lease_expires_at: 0 }]);
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT seq FROM audit WHERE decision = 'escalate'")
      .all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("audit_escalations");
  });

  it("RunLedger: the step that counts decisions off the log carries the counts, folded through the last entry", () => {
    const seed = `${RUN_ROW}
      ${auditEntries([1, "applied", null], [2, "pending", null], [3, "applied", 2], [4, "pending", null])}`;
    const { db, rows, kept, after } = carriedThrough(MIGRATIONS, FRESH_RUN_SCHEMA, {
      marker: "counted_through",
      seed,
      tables: ["decision_count", "open_call"],
    });
    expect(after).toEqual(kept);
    const storage = storageOf(db);
    expect(decisionCounts(storage)).toEqual({ applied: 2, pending: 1 });
    expect(db.prepare("SELECT counted_through FROM run").get()).toEqual({ counted_through: 4 });
    // Later entries write no count: they are read off the log, the open calls still follow.
    db.exec(auditEntries([5, "applied", 4], [6, "pending", null], [7, "blocked", null]));
    expect(rows("decision_count")).toEqual(kept[0]);
    expect(decisionCounts(storage)).toEqual({ applied: 3, pending: 1, blocked: 1 });
    expect(rows("open_call")).toEqual([{ seq: 6, call_id: "c6", lease_expires_at: 0 }]);
  });

  it("RunLedger: the step that counts tool uses off the log keeps the counts, and later entries add theirs", () => {
    const seed = `${RUN_ROW}
      INSERT INTO tool_use VALUES ('noop', 3), ('create_ticket', 1);
      ${auditEntries([1, "applied", null], [2, "applied", null], [3, "pending", null])}
      UPDATE run SET counted_through = 1;`;
    const { db, rows, kept, after } = carriedThrough(MIGRATIONS, FRESH_RUN_SCHEMA, {
      marker: "ADD COLUMN uses",
      seed,
      tables: ["tool_use"],
    });
    expect(after).toEqual(kept);
    const storage = storageOf(db);
    // Entries written before the step were counted in tool_use as they were written: the ones
    // not folded yet add nothing again.
    expect(toolCalls(storage)).toEqual({ noop: 3, create_ticket: 1 });
    db.exec(`${auditEntries([4, "applied", 3], [5, "pending", null], [6, "applied", null])}
      UPDATE audit SET tool = 'create_ticket', uses = 1 WHERE seq = 5;
      UPDATE audit SET tool = 'lookup', uses = 1 WHERE seq = 6;`);
    expect(toolCalls(storage)).toEqual({ noop: 3, create_ticket: 2, lookup: 1 });
    expect(rows("tool_use")).toEqual(kept[0]);
  });

  it("a new run's database has no sqlite_sequence: no table of it counts its rows there", () => {
    const db = new DatabaseSync(":memory:");
    migrate(storageOf(db), MIGRATIONS, FRESH_RUN_SCHEMA);
    db.exec(FRESH_RUN_SCHEMA.rare);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").all(),
    ).toEqual([]);
  });

  it("TenantLedger: the step that rebuilds its tables keeps their rows", () => {
    const seed = `INSERT INTO target_claim VALUES ('create_ticket', 'T-1', 'r1', 'k1', 'c1', 1, 'default', 9, 0);
      INSERT INTO target_claim (tool, target, run_id, intent, call_id, claimed_at)
        VALUES ('create_ticket', 'T-2', 'r1', 'k2', 'c2', 2);
      INSERT INTO approval_index VALUES ('a1', 'r1', 'create_ticket', 'urgent_ticket', 'pending', 1, 9);
      INSERT INTO run_index VALUES ('r1', 1), ('r2', 2);
      INSERT INTO console_signed_out VALUES ('s1', 9);`;
    const tables = ["target_claim", "approval_index", "run_index", "console_signed_out"];
    const { db, kept, after } = carriedThrough(TENANT_MIGRATIONS, FRESH_TENANT_SCHEMA, {
      marker: "target_claim_keyed",
      seed,
      tables,
    });
    expect(versionOf(db)).toBe(TENANT_MIGRATIONS.length);
    // Later steps add columns (a run's end, an approval's page); the rows keep what they held.
    expect(after.map((rows, i) => rows.map((r, j) => pick(r, kept[i]?.[j])))).toEqual(kept);
    expect(kept[0]).toHaveLength(2);
    expect(kept[0]?.[1]).toMatchObject({ target: "T-2", confirmed: 1, lease_expires_at: null });
  });

  it("a new run's object leaves out exactly the rare tables, with their indexes", () => {
    const made = (sql: string) => new Set(schemaAfter([sql]).map(tableOf));
    expect([...made(FRESH_RUN_SCHEMA.rare)].sort()).toEqual([...RARE_RUN_TABLES].sort());
    for (const table of RARE_RUN_TABLES) expect(made(FRESH_RUN_SCHEMA.sql).has(table)).toBe(false);
    expect(made(FRESH_RUN_SCHEMA.sql)).toContain("audit");
    expect(FRESH_RUN_SCHEMA.rare).toContain("CREATE INDEX approval_by_status");
    expect(FRESH_TENANT_SCHEMA.rare).toBe("");
  });

  it("an audit append binds every column of the audit table, in the table's order", () => {
    const db = new DatabaseSync(":memory:");
    migrate(storageOf(db), MIGRATIONS, FRESH_RUN_SCHEMA);
    const columns = db.prepare("SELECT name FROM pragma_table_info('audit')").all();
    expect(columns.map((c) => c.name)).toEqual([...AUDIT_COLUMNS]);
  });

  it("a script that stands for other steps is not used: the steps run instead", () => {
    const db = new DatabaseSync(":memory:");
    const stale: FreshSchema = { steps: 1, sql: "CREATE TABLE stale (x INTEGER);", rare: "" };
    migrate(storageOf(db), MIGRATIONS, stale);
    expect(schemaOf(db)).toEqual(schemaAfter(MIGRATIONS));
  });
});
