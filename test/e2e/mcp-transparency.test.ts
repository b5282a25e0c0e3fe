import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  compare,
  differences,
  grantDifferences,
  LISTED,
  type Row,
  type Stand,
  startStand,
  table,
} from "./transparency.ts";

// The conformance upstream directly and through a fence made by importing its tools, under
// `wrangler dev`; the suite runs each requirement set at both (transparency.ts).
let stand: Stand;
let rows: Row[];
beforeAll(async () => {
  stand = await startStand();
  rows = await compare(stand);
  // The table docs/mcp.md carries, as this run measured it.
  console.log(table(rows));
}, 600_000);
afterAll(() => stand?.stop());

describe("the official MCP suite through the fence, against the upstream directly", () => {
  it("runs every scenario of both requirement sets at both places", () => {
    for (const revision of ["2025-11-25", "2026-07-28"]) {
      const at = rows.filter((r) => r.revision === revision);
      expect(at.length, revision).toBeGreaterThan(25);
      for (const r of at) {
        expect(r.direct.failures, `${revision} ${r.scenario}`).not.toContain("did not run");
        expect(r.fence.failures, `${revision} ${r.scenario}`).not.toContain("did not run");
      }
    }
  });

  it("has an upstream that passes every scenario but the Tasks extension's directly", () => {
    const failed = rows.filter((r) => !r.direct.passed && !r.scenario.startsWith("tasks-"));
    expect(failed.map((r) => `${r.revision} ${r.scenario}: ${r.direct.failures}`)).toEqual([]);
  });

  it("passes through the fence every scenario the upstream passes, but those listed", () => {
    const unlisted = differences(rows).filter((d) => d.listed === null);
    expect(unlisted.map((d) => `${d.revision} ${d.scenario}: ${d.failures.join("; ")}`)).toEqual(
      [],
    );
  });

  it("answers every scenario at /mcp with an OAuth token as at a run's endpoint with a key", () => {
    expect(grantDifferences(rows)).toEqual([]);
  });

  it("lists no difference that the fence no longer makes", () => {
    const found = differences(rows);
    const stale = Object.keys(LISTED).filter(
      (key) => !found.some((d) => key === d.scenario || key === `${d.revision}:${d.scenario}`),
    );
    expect(stale).toEqual([]);
  });
});
