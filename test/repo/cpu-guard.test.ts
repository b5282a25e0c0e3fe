import { describe, expect, it } from "vitest";
import {
  END_TO_END,
  guardVerdicts,
  KEYED,
  recordedTables,
  workerRatio,
} from "../../scripts/bench/cpu-guard.ts";
import { markdown, type Table } from "../../scripts/bench/table.ts";

const E2E_HEAD = ["route", "req/s", "CPU vs floor (all / worker)"];
const KEYED_HEAD = ["route", "req/s", "CPU vs keyed floor (worker)"];

function tables(noop: string, hit: string, refused: string, comment: string, ticket: string) {
  const endToEnd: Table = {
    title: END_TO_END,
    note: "",
    head: E2E_HEAD,
    rows: [
      ["floor: one insert (worker → object, 1 SQLite insert)", "462", ""],
      ["cache hit (repeated read, X-Cache: hit-memory)", "280", hit],
      ["refused call (malformed body, 400 by design)", "280", refused],
      ["noop call (gate + 1 ledger call, answered by the fence)", "323", noop],
      ["noop call, a new run every 1000 calls (its floor's too)", "366", "9.00x / 9.00x"],
    ],
  };
  const keyed: Table = {
    title: KEYED,
    note: "",
    head: KEYED_HEAD,
    rows: [
      ["mutation (add_comment: 2 ledger steps + tickets object)", "89", comment],
      ["mutation (create_ticket: target claim + 2 ledger steps)", "95", ticket],
    ],
  };
  return [endToEnd, keyed];
}

const RECORDED = tables("1.81x / 1.20x", "1.90x / 1.20x", "1.95x / 1.20x", "1.35x", "1.35x");
const DOC = `# Benchmarks\n\nintro\n\n${RECORDED.map(markdown).join("\n")}`;

describe("the CPU guard", () => {
  it("reads the worker's ratio of a cell", () => {
    expect(workerRatio("1.66x / 1.60x")).toBe(1.6);
    expect(workerRatio("1.82x")).toBe(1.82);
    expect(workerRatio("")).toBeNull();
  });

  it("reads the tables BENCHMARKS.md records, by title", () => {
    const read = recordedTables(DOC);
    expect(read.get(END_TO_END)?.rows[3]?.[2]).toBe("1.81x / 1.20x");
    expect(read.get(KEYED)?.head).toEqual(KEYED_HEAD);
  });

  it("passes every path within 10 % of its record", () => {
    const now = tables("3.00x / 1.31x", "1.00x / 1.10x", "1.95x / 1.32x", "1.48x", "1.20x");
    expect(guardVerdicts(DOC, now).every((v) => v.passed)).toBe(true);
  });

  it("fails the path past 10 % above its record, by name, and no other", () => {
    const now = tables("1.81x / 1.33x", "1.90x / 1.20x", "1.95x / 1.20x", "1.35x", "1.49x");
    const failed = guardVerdicts(DOC, now).filter((v) => !v.passed);
    expect(failed.map((v) => v.path)).toEqual(["noop", "create_ticket"]);
    expect(failed[0]).toMatchObject({ recorded: 1.2, measured: 1.33 });
  });

  it("fails a path with no recorded figure rather than pass it unread", () => {
    const bare = `# Benchmarks\n\n${markdown(RECORDED[1] as Table)}`;
    const verdicts = guardVerdicts(bare, RECORDED);
    expect(verdicts.filter((v) => !v.passed).map((v) => v.path)).toEqual([
      "noop",
      "cache hit",
      "refused (malformed body)",
    ]);
  });
});
