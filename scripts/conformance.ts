/**
 * `npm run conformance`: the official MCP conformance suite's server scenarios against the
 * project's conformance upstream directly and through a fence in front of it (the tools imported
 * with `npm run contracts -- import`, the fence under `wrangler dev`), at the 2025-11-25 and
 * 2026-07-28 requirement sets. Prints what the import refused, one line per scenario (direct and
 * through the fence, per revision), and why each scenario that passes directly fails through
 * the fence. Exits 1 when such a scenario is not listed with its reason, as a change the fence
 * makes on purpose or as one it does not relay yet (test/e2e/transparency.ts, `LISTED`).
 */
import {
  compare,
  differences,
  grantDifferences,
  startStand,
  table,
} from "../test/e2e/transparency.ts";
import { parseCli } from "./lib/cli.ts";

const USAGE = "usage: npm run conformance";

parseCli({ options: {} }, USAGE);
const stand = await startStand();
try {
  console.log(`import (exit ${stand.imported.code}):\n${stand.imported.output.trim()}\n`);
  const rows = await compare(stand);
  console.log(`${table(rows)}\n`);
  const found = differences(rows);
  for (const d of found) {
    const why = d.listed === null ? "NOT LISTED" : `${d.listed.kind}: ${d.listed.reason}`;
    console.log(`${d.revision} ${d.scenario}: ${why}\n  ${d.failures.join("\n  ")}`);
  }
  // `/mcp` with an OAuth token is the same endpoint as a run's with a key.
  const byGrant = grantDifferences(rows);
  console.log(
    byGrant.length === 0
      ? "/mcp with an OAuth token: every scenario as at /v1/runs/{id}/mcp"
      : `/mcp with an OAuth token differs:\n  ${byGrant.join("\n  ")}`,
  );
  process.exitCode = found.some((d) => d.listed === null) || byGrant.length > 0 ? 1 : 0;
} finally {
  await stand.stop();
}
