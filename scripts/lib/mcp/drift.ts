/**
 * Drift of pinned MCP contracts: each pinned tool's hash against what its server lists now,
 * with a line diff of the canonical schemas for a changed one.
 */
import {
  describeListingFinding,
  type ListingFinding,
  scanListedTool,
} from "../../../src/core/guardrails/listing-scan.ts";
import { type ListedTool, type Pin, pinnedSchema, schemaHash } from "./pin.ts";

/** One row of the drift table. */
export interface DriftRow {
  /** The fence's name for the tool, or null for a tool the server lists but none pins. */
  fenceName: string | null;
  /** The server's name for the tool. */
  remote: string;
  /** What changed. */
  status: "unchanged" | "changed" | "gone" | "new";
  /** For `changed`: the schema lines removed (`-`) and added (`+`). */
  diff: string[];
  /** For `changed` and `new`: what the listing scan finds in the tool as listed now. */
  findings: ListingFinding[];
}

/** Compare the pinned contracts of one server with the tools it lists now. */
export function drift(pinned: readonly Pin[], listed: readonly ListedTool[]): DriftRow[] {
  const byName = new Map(listed.map((t) => [t.name, t]));
  const names = [...listed.map((t) => t.name), ...pinned.flatMap((p) => [p.tool, p.name])];
  const none = { diff: [], findings: [] };
  const rows: DriftRow[] = pinned.map((p) => {
    const now = byName.get(p.tool);
    const remote = p.tool;
    if (now === undefined) return { fenceName: p.name, remote, status: "gone", ...none };
    const schema = pinnedSchema(now);
    if (schemaHash(schema) === p.sha256) {
      return { fenceName: p.name, remote, status: "unchanged", ...none };
    }
    const diff = lineDiff(p.schema, schema);
    return {
      fenceName: p.name,
      remote,
      status: "changed",
      diff,
      findings: scanListedTool(now, names),
    };
  });
  const known = new Set(pinned.map((p) => p.tool));
  for (const t of listed) {
    if (known.has(t.name)) continue;
    rows.push({
      fenceName: null,
      remote: t.name,
      status: "new",
      diff: [],
      findings: scanListedTool(t, names),
    });
  }
  return rows;
}

/** Whether the rows show drift: a pinned tool changed or gone (a new tool is not drift). */
export function drifted(rows: readonly DriftRow[]): boolean {
  return rows.some((r) => r.status === "changed" || r.status === "gone");
}

/** The table as printed, with each change's diff under its row. */
export function driftTable(rows: readonly DriftRow[]): string {
  const width = Math.max(10, ...rows.map((r) => (r.fenceName ?? "-").length));
  const remoteWidth = Math.max(6, ...rows.map((r) => r.remote.length));
  const lines = [`${"tool".padEnd(width)}  ${"remote".padEnd(remoteWidth)}  status`];
  for (const r of rows) {
    lines.push(
      `${(r.fenceName ?? "-").padEnd(width)}  ${r.remote.padEnd(remoteWidth)}  ${r.status}`,
    );
    for (const d of r.diff) lines.push(`    ${d}`);
    for (const f of r.findings) lines.push(`    finding: ${describeListingFinding(f)}`);
  }
  return lines.join("\n");
}

/** Lines of the pretty, key-sorted JSON present in only one of `before` and `after`. */
export function lineDiff(before: unknown, after: unknown): string[] {
  const a = pretty(before);
  const b = pretty(after);
  const inA = new Set(a);
  const inB = new Set(b);
  return [
    ...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`),
    ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`),
  ];
}

function pretty(value: unknown): string[] {
  return JSON.stringify(sortKeys(value), null, 2)
    .split("\n")
    .map((l) => l.trim());
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}
