import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AuthProxy, authProxy } from "./auth-proxy.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BASELINE = join(ROOT, "test/e2e/mcp-conformance-baseline.yml");
const BIN = join(ROOT, "node_modules/.bin/conformance");

let proxy: AuthProxy;
beforeAll(async () => {
  proxy = await authProxy(inject("fenceUrl"), "tf_dev_local_key");
});
afterAll(() => proxy.close());

/** One check of a scenario as the suite saves it (`checks.json`). */
interface Check {
  /** The check's id, as the baseline names it after `scenario:`. */
  id: string;
  /** SUCCESS, FAILURE, WARNING, SKIPPED or INFO. */
  status: string;
}

/** What one run of the suite did. */
interface Run {
  /** The CLI's exit code: 0 when every failure is in the baseline and no entry is stale. */
  code: number | null;
  /** Everything it printed. */
  output: string;
  /** Each scenario's checks, by scenario name. */
  checks: Map<string, Check[]>;
}

/** Run the suite's CLI with `args`; its exit code and everything it printed. */
function cli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(BIN, args, { env: process.env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => done({ code, output }));
  });
}

/** The checks the suite saved in `out`, one folder `server-<scenario>-<timestamp>` each. */
function savedChecks(out: string): Map<string, Check[]> {
  const checks = new Map<string, Check[]>();
  for (const folder of readdirSync(out)) {
    const scenario = folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
    checks.set(scenario, JSON.parse(readFileSync(join(out, folder, "checks.json"), "utf8")));
  }
  return checks;
}

/**
 * Run the official MCP conformance suite at one revision against a fresh run's endpoint,
 * judged against the baseline; `args` pick the scenarios.
 */
async function conformance(revision: string, args: string[]): Promise<Run> {
  const out = mkdtempSync(join(tmpdir(), "toolfence-conformance-"));
  const url = `${proxy.url}/v1/runs/conformance-${crypto.randomUUID()}/mcp`;
  try {
    const { code, output } = await cli([
      ...["server", "--url", url, "--spec-version", revision, ...args],
      ...["--expected-failures", BASELINE, "-o", out],
    ]);
    return { code, output, checks: savedChecks(out) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Every check of `scenario` passed (none failed or warned), at least `min` of them. */
function passes(run: Run, scenario: string, min = 1): void {
  const checks = run.checks.get(scenario) ?? [];
  const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  expect(failed, scenario).toEqual([]);
  expect(checks.filter((c) => c.status === "SUCCESS").length, scenario).toBeGreaterThanOrEqual(min);
}

/** The check `id` of `scenario` passed. */
function passed(run: Run, scenario: string, id: string): void {
  const statuses = (run.checks.get(scenario) ?? []).filter((c) => c.id === id).map((c) => c.status);
  expect(statuses.length, `${scenario}:${id} did not run`).toBeGreaterThan(0);
  expect(new Set(statuses), `${scenario}:${id}`).toEqual(new Set(["SUCCESS"]));
}

describe("the official MCP conformance suite", () => {
  it("passes every generic scenario at 2025-11-25; the baseline lists each that cannot apply", async () => {
    const run = await conformance("2025-11-25", ["--suite", "all"]);
    for (const scenario of ["server-initialize", "ping", "logging-set-level", "tools-list"]) {
      passes(run, scenario);
    }
    passes(run, "dns-rebinding-protection", 2);
    expect(run.code, run.output.slice(-3000)).toBe(0);
  }, 120_000);

  it("passes every generic scenario at 2026-07-28; the baseline lists each that cannot apply", async () => {
    const run = await conformance("2026-07-28", ["--suite", "all"]);
    passes(run, "tools-list", 4);
    passes(run, "dns-rebinding-protection", 2);
    passes(run, "http-header-validation", 10);
    passes(run, "server-sse-multiple-streams");
    passes(run, "input-required-result-unsupported-methods");
    // The stateless lifecycle; its four checks on the suite's diagnostic tools are baselined.
    for (const id of [
      "sep-2575-server-implements-discover",
      "sep-2575-discover-capabilities-match-handlers",
      "sep-2575-request-meta-invalid-missing-protocol-version",
      "sep-2575-http-server-meta-invalid-400",
      "sep-2575-server-unsupported-version-error",
      "sep-2575-http-server-unsupported-version-400",
      "sep-2575-http-server-header-mismatch-400",
      "sep-2575-http-server-method-not-found-404-initialize",
      "sep-2575-http-server-error-jsonrpc-id",
    ]) {
      passed(run, "server-stateless", id);
    }
    passed(run, "caching", "sep-2549-tools-list-caching-hints");
    expect(run.code, run.output.slice(-3000)).toBe(0);
  }, 120_000);

  it("passes the Tasks extension's checks that need no fixture tool", async () => {
    const listed = await cli(["list", "--server"]);
    const tasks = [...listed.output.matchAll(/- (tasks-[a-z-]+) \[extension\]/g)].map((m) => m[1]);
    expect(tasks).toContain("tasks-capability-negotiation");
    const checks = new Map<string, Check[]>();
    for (const scenario of tasks) {
      const run = await conformance("2026-07-28", ["--scenario", String(scenario), "--force"]);
      expect(run.code, `${scenario}: ${run.output.slice(-3000)}`).toBe(0);
      for (const [name, list] of run.checks) checks.set(name, list);
    }
    const all: Run = { code: 0, output: "", checks };
    passed(all, "tasks-capability-negotiation", "tasks-extension-advertised");
    passed(all, "tasks-capability-negotiation", "sep-2663-tasks-methods-non-declaring");
    passed(all, "tasks-dispatch-and-envelope", "sep-2663-tasks-result-removed-method-not-found");
    passed(all, "tasks-dispatch-and-envelope", "tasks-removed-tasks-list");
    passed(all, "tasks-dispatch-and-envelope", "sep-2663-tasks-get-invalid-task-id-32602");
    passed(all, "tasks-request-headers", "tasks-headers-reject-mismatched-method");
  }, 120_000);
});
