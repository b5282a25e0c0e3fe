import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const out = mkdtempSync(join(tmpdir(), "toolfence-bundle-"));
let bundle = "";

/**
 * The worker as `wrangler deploy` would upload it. workerd refuses code generation at run
 * time (`eval`, `new Function`: EvalError on a deployed worker), while the test pool allows
 * it, so a dependency that compiles schemas would pass every workers test and still fail
 * deployed. This scans what ships.
 */
beforeAll(() => {
  const run = spawnSync(
    join(ROOT, "node_modules/.bin/wrangler"),
    ["deploy", "--dry-run", "--outdir", out],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${run.stderr}`);
  bundle = readFileSync(join(out, "index.js"), "utf8");
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the deployed bundle", () => {
  it("generates no code at run time and carries no schema compiler", () => {
    expect(bundle.length).toBeGreaterThan(100_000);
    expect(bundle.match(/\bnew Function\s*\(/g) ?? []).toEqual([]);
    expect(bundle.match(/(?<![\w.])eval\s*\(/g) ?? []).toEqual([]);
    // Code, not prose: an import or a require of ajv, or its compile entry point.
    expect(bundle.match(/["'/]ajv["'/]|\bnew Ajv\b/g) ?? []).toEqual([]);
  });

  it("ships the MCP endpoint with an interpreting JSON Schema validator", () => {
    expect(bundle).toContain("CfWorkerJsonSchemaValidator");
  });
});
