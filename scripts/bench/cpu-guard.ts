/**
 * `npm run bench -- --guard`: keeps the per-call cost from creeping back. It measures the
 * end-to-end and keyed-mutation tables again (printed, not written) and compares each guarded
 * path's worker CPU per call over its adjacent floor with the figure BENCHMARKS.md records for
 * it; a path more than `GUARD_MARGIN` above its record fails the run, by name. A benchmark run
 * by hand, never a test: its figures depend on the machine.
 */
import type { Table } from "./table.ts";

/** How far above its recorded ratio a path may measure before the guard fails. */
export const GUARD_MARGIN = 0.1;

/** The end-to-end table's title (scripts/bench/http.ts). */
export const END_TO_END = "End to end through wrangler dev, against the floor";
/** The keyed mutations' table's title (scripts/bench/keyed.ts). */
export const KEYED = "Mutations against floors that keep an idempotency key";

/** A guarded path: the table and row it is read from, and the column of its CPU ratio. */
interface Guarded {
  path: string;
  table: string;
  /** How the row's first cell begins. */
  row: string;
  column: string;
}

export const GUARDED: readonly Guarded[] = [
  { path: "noop", table: END_TO_END, row: "noop call (", column: "CPU vs floor (all / worker)" },
  { path: "cache hit", table: END_TO_END, row: "cache hit", column: "CPU vs floor (all / worker)" },
  {
    path: "refused (malformed body)",
    table: END_TO_END,
    row: "refused call",
    column: "CPU vs floor (all / worker)",
  },
  {
    path: "add_comment",
    table: KEYED,
    row: "mutation (add_comment",
    column: "CPU vs keyed floor (worker)",
  },
  {
    path: "create_ticket",
    table: KEYED,
    row: "mutation (create_ticket",
    column: "CPU vs keyed floor (worker)",
  },
];

/** The worker's ratio in a cell: `1.66x / 1.60x` (all / worker) or `1.82x`; null when none. */
export function workerRatio(cell: string | undefined): number | null {
  const figures = [...(cell ?? "").matchAll(/(\d+(?:\.\d+)?)x/g)].map((m) => Number(m[1]));
  const last = figures.at(-1);
  return last === undefined ? null : last;
}

/** The tables of a BENCHMARKS.md text, by title: each `### ` section's first markdown table. */
export function recordedTables(doc: string): Map<string, Table> {
  const out = new Map<string, Table>();
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((c) => c.trim());
  for (const section of doc.split(/^### /m).slice(1)) {
    const [title = "", ...lines] = section.split("\n");
    const table = lines.filter((l) => l.startsWith("|"));
    const [head, , ...rows] = table;
    if (head === undefined) continue;
    out.set(title.trim(), {
      title: title.trim(),
      note: "",
      head: cells(head),
      rows: rows.map(cells),
    });
  }
  return out;
}

/** The ratio a table gives for `g`, or null when its row or column is missing. */
function ratioIn(tables: ReadonlyMap<string, Table>, g: Guarded): number | null {
  const table = tables.get(g.table);
  const column = table?.head.indexOf(g.column) ?? -1;
  const row = table?.rows.find((r) => (r[0] ?? "").startsWith(g.row));
  return column < 0 || row === undefined ? null : workerRatio(row[column]);
}

/** One guarded path: its recorded and measured ratios, and whether it passed. */
export interface Verdict {
  path: string;
  recorded: number | null;
  measured: number | null;
  passed: boolean;
}

/**
 * Each guarded path's verdict: measured no more than `GUARD_MARGIN` above its record. A path
 * without a record, or not measured, fails: the guard must not pass by reading nothing.
 */
export function guardVerdicts(doc: string, measured: readonly Table[]): Verdict[] {
  const recorded = recordedTables(doc);
  const now = new Map(measured.map((t) => [t.title, t]));
  return GUARDED.map((g) => {
    const was = ratioIn(recorded, g);
    const is = ratioIn(now, g);
    const passed = was !== null && is !== null && is <= was * (1 + GUARD_MARGIN);
    return { path: g.path, recorded: was, measured: is, passed };
  });
}

/** The verdicts as a table, for the terminal. */
export function verdictTable(verdicts: readonly Verdict[]): Table {
  const x = (r: number | null) => (r === null ? "none" : `${r.toFixed(2)}x`);
  return {
    title: "CPU guard: worker CPU per call over its floor, against BENCHMARKS.md",
    note: "",
    head: ["path", "recorded", "measured", "limit", "verdict"],
    rows: verdicts.map((v) => [
      v.path,
      x(v.recorded),
      x(v.measured),
      v.recorded === null ? "none" : x(v.recorded * (1 + GUARD_MARGIN)),
      v.passed ? "ok" : "FAILED",
    ]),
  };
}
