/**
 * The transparency check: the official MCP conformance suite's server scenarios run against an
 * upstream directly and through a fence in front of it, per requirement set, side by side.
 *
 * The upstream is the project's conformance fixture (conformance-server.ts). Its tools are
 * imported into a fence with `npm run contracts -- import` as a user runs it (no name prefix,
 * so the suite's fixed names are the fence's), the import's contracts listed in a policy that
 * allows them all with room in the budget, and that fence started under `wrangler dev` with the
 * fixture's URL. The suite then runs, at each revision's requirement set, against the fixture's
 * URL and against a fresh run's `/v1/runs/{id}/mcp` (through a proxy adding the bearer key).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { absoluteConfig, type DevServer, startDev } from "../../scripts/lib/dev-server.ts";
import { type AuthProxy, authProxy } from "./auth-proxy.ts";
import { type ConformanceServer, startConformanceServer } from "./conformance-server.ts";
import { grantToken } from "./grant-token.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const SUITE = join(ROOT, "node_modules/.bin/conformance");
const KEY = "tf_dev_local_key";
/** A console secret of the stand's own (any 32 characters or more). */
const CONSOLE = "transparency-console-secret-0123456789";
/** The variable the imported contracts read the fixture's URL from. */
const URL_VAR = "MCP_CONFORMANCE_URL";

/** The requirement sets the suite freezes per revision, each run at its own wire. */
export const REVISIONS = ["2025-11-25", "2026-07-28"] as const;
export type Revision = (typeof REVISIONS)[number];

/** Where a scenario ran. */
export type Target = "direct" | "fence";

/** How one scenario went at one place: every check passed, or the checks that did not. */
export interface Outcome {
  /** No check failed (warnings and skips count as passing, as the suite counts them). */
  passed: boolean;
  /** `id: message` of each failed check. */
  failures: string[];
}

/** One scenario of one requirement set, at both places. */
export interface Row {
  revision: Revision;
  scenario: string;
  direct: Outcome;
  fence: Outcome;
  /** Through the fence's `/mcp`, with an OAuth access token of a grant (the same endpoint). */
  grant: Outcome;
}

/** What the import said about the fixture's tools (a tool it refused is not in the fence). */
export interface ImportReport {
  /** Exit code of `npm run contracts -- import`. */
  code: number | null;
  /** Everything it printed. */
  output: string;
}

/** A fixture and a fence in front of it, running. */
export interface Stand {
  upstream: ConformanceServer;
  fence: DevServer;
  proxy: AuthProxy;
  /** A proxy adding an OAuth access token, granted on the fence's consent page in Chromium. */
  grant: AuthProxy;
  imported: ImportReport;
  /** Stop everything and remove the generated fence. */
  stop: () => Promise<void>;
}

/** One suite check as the suite saves it (`checks.json`). */
interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function run(
  command: string,
  args: string[],
  cwd = ROOT,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: process.env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => done({ code, output }));
  });
}

/** The fence's generated files: contracts list, policy allowing them all, worker, config. */
function writeFence(dir: string): void {
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
  const names = files.map((f) => f.slice(0, -3)).sort();
  const imports = names.map((n, i) => `import * as c${i} from "./${n}.ts";`).join("\n");
  const list = names.map((_, i) => `c${i}`).join(", ");
  writeFileSync(
    join(dir, "index.ts"),
    `import type { ToolContract } from "../../../src/core/contract.ts";\n${imports}\n` +
      `import policy from "./policy.json" with { type: "json" };\n\n` +
      `export const CONTRACTS: readonly ToolContract[] = [${list}].flatMap((m) => Object.values(m));\n` +
      "export const POLICY_SOURCE: unknown = policy;\n",
  );
  // The demo's limits, with room for every scenario of a suite run in one run's budget.
  const demo = JSON.parse(readFileSync(join(ROOT, "contracts/policy.json"), "utf8")) as object;
  const policy = { ...demo, allowed_tools: names, max_mutations: 1000, max_paid_calls: 1000 };
  writeFileSync(join(dir, "policy.json"), `${JSON.stringify(policy, null, 2)}\n`);
  // The deployed worker's entry with these contracts: every class it exports, as it does.
  const entry = readFileSync(join(ROOT, "src/index.ts"), "utf8")
    .replaceAll(`from "./`, `from "../../../src/`)
    .replace(`from "../contracts/index.ts"`, `from "./index.ts"`);
  writeFileSync(join(dir, "worker.ts"), entry);
  const toml = absoluteConfig(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), ROOT);
  const main = `main = ${JSON.stringify(join(dir, "worker.ts"))}`;
  writeFileSync(join(dir, "wrangler.toml"), toml.replace(/^main = .*$/m, main));
}

/** Once no process of `group` is left (at most 10 s). */
async function exited(group: number | null): Promise<void> {
  for (let waited = 0; group !== null && waited < 10_000; waited += 100) {
    try {
      process.kill(-group, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Start the fixture, import its tools into a fresh folder of test/e2e (ignored by git, inside
 * the checkout so its modules resolve the project's packages), and start a fence of them.
 */
export async function startStand(): Promise<Stand> {
  const upstream = await startConformanceServer();
  const dir = mkdtempSync(join(ROOT, "test/e2e/.imported-conformance-"));
  const drop = () => rmSync(dir, { recursive: true, force: true });
  try {
    const imported = await run(process.execPath, [
      join(ROOT, "scripts/contracts.ts"),
      ...["import", "--mcp", upstream.url, "--url-var", URL_VAR, "--out", dir],
    ]);
    writeFence(dir);
    // A console secret seals the request states of an upstream's rounds of input, and task ids.
    const fence = await startDev(
      { DEV_KEY: KEY, CONSOLE_SECRET: CONSOLE, [URL_VAR]: upstream.url },
      { config: join(dir, "wrangler.toml") },
    );
    const proxy = await authProxy(fence.url, KEY);
    // The grant's token is bound to the fence's own `/mcp` (RFC 8707), which the proxy names.
    const token = await grantToken(fence.url, KEY);
    const grant = await authProxy(fence.url, token, { asTarget: true });
    return {
      upstream,
      fence,
      proxy,
      grant,
      imported,
      stop: async () => {
        await proxy.close();
        await grant.close();
        fence.stop();
        await upstream.close();
        // wrangler writes into the folder (.wrangler/tmp) until it has exited.
        await exited(fence.group);
        drop();
      },
    };
  } catch (e) {
    await upstream.close();
    drop();
    throw e;
  }
}

/** Run the suite's server scenarios of `revision`'s requirement set against `url`. */
async function suite(url: string, revision: Revision): Promise<Map<string, Outcome>> {
  const out = mkdtempSync(join(tmpdir(), "toolfence-transparency-"));
  try {
    await run(SUITE, ["server", "--url", url, "--requirements", revision, "-o", out]);
    const outcomes = new Map<string, Outcome>();
    for (const folder of readdirSync(out)) {
      const scenario = folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
      const saved = join(out, folder, "checks.json");
      const missing = [{ id: "checks", status: "FAILURE", errorMessage: "the suite saved none" }];
      const checks = existsSync(saved)
        ? (JSON.parse(readFileSync(saved, "utf8")) as Check[])
        : missing;
      const failed = checks.filter((c) => c.status === "FAILURE");
      outcomes.set(scenario, {
        passed: failed.length === 0,
        failures: failed.map((c) => `${c.id}: ${c.errorMessage ?? "failed"}`),
      });
    }
    return outcomes;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Every scenario of both requirement sets, directly and through the fence (a fresh run each). */
export async function compare(stand: Stand): Promise<Row[]> {
  const rows: Row[] = [];
  for (const revision of REVISIONS) {
    const runUrl = `${stand.proxy.url}/v1/runs/transparency-${revision}-${crypto.randomUUID()}/mcp`;
    const direct = await suite(stand.upstream.url, revision);
    const fence = await suite(runUrl, revision);
    const grant = await suite(`${stand.grant.url}/mcp`, revision);
    const missing: Outcome = { passed: false, failures: ["did not run"] };
    for (const scenario of new Set([...direct.keys(), ...fence.keys()])) {
      rows.push({
        revision,
        scenario,
        direct: direct.get(scenario) ?? missing,
        fence: fence.get(scenario) ?? missing,
        grant: grant.get(scenario) ?? missing,
      });
    }
  }
  return rows;
}

const mark = (o: Outcome | undefined) => (o === undefined ? "" : o.passed ? "pass" : "FAIL");

/** The rows as a Markdown table: one line per scenario, direct and fence per revision. */
export function table(rows: readonly Row[]): string {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  const at = (s: string, rev: Revision) => rows.find((r) => r.scenario === s && r.revision === rev);
  const head = `| scenario | ${REVISIONS.map((r) => `${r} direct | ${r} fence`).join(" | ")} |`;
  const rule = `|---|${REVISIONS.map(() => "---|---").join("|")}|`;
  const lines = scenarios.map((s) => {
    const cells = REVISIONS.map((rev) => {
      const row = at(s, rev);
      return `${mark(row?.direct)} | ${mark(row?.fence)}`;
    });
    return `| \`${s}\` | ${cells.join(" | ")} |`;
  });
  return [head, rule, ...lines].join("\n");
}

/**
 * Scenarios whose outcome at `/mcp` with an OAuth token differs from `/v1/runs/{id}/mcp` with
 * a key: `revision scenario: failures at /mcp`. The two are one endpoint, so none should.
 */
export function grantDifferences(rows: readonly Row[]): string[] {
  return rows
    .filter((r) => r.grant.passed !== r.fence.passed)
    .map((r) => {
      const failures = r.grant.passed ? "passes" : r.grant.failures.join("; ");
      return `${r.revision} ${r.scenario}: ${failures}`;
    });
}

/** Why a scenario that passes directly fails through the fence. */
export interface Listed {
  /** `changed`: the fence changes this on purpose; `not relayed`: a gap, not yet relayed. */
  kind: "changed" | "not relayed";
  reason: string;
}

const RESOURCES = "resources of an upstream are not relayed: the fence serves tools only";
const PROMPTS = "prompts of an upstream are not relayed: the fence serves tools only";
const TO_CLIENT =
  "on 2025-11-25 a request the upstream makes during a call (elicitation, sampling, roots) is not relayed to the agent's client: the endpoint is stateless, so a call does not know what the client declared at initialize, and the client's answer would come as another POST, which nothing routes to the call that waits; the fence's call to the upstream declares no such capability, so the tool gets no answer (2026-07-28's input-required results are relayed)";
/**
 * Every scenario (or `revision:scenario`) that passes directly and fails through the fence,
 * and why: a difference not listed here is a defect, and an entry that no longer differs is
 * stale. docs/mcp.md gives the same list.
 */
export const LISTED: Readonly<Record<string, Listed>> = {
  "http-custom-header-server-validation": {
    kind: "changed",
    reason:
      "a tool whose schema mirrors an argument into a header (x-mcp-header) is refused at import: the fence does not validate that header, and imports nothing it cannot enforce",
  },
  "completion-complete": {
    kind: "not relayed",
    reason: "completion/complete is not relayed: the fence has no prompts or resource templates",
  },
  "tools-call-sampling": { kind: "not relayed", reason: TO_CLIENT },
  "tools-call-elicitation": { kind: "not relayed", reason: TO_CLIENT },
  "elicitation-sep1034-defaults": { kind: "not relayed", reason: TO_CLIENT },
  "elicitation-sep1330-enums": { kind: "not relayed", reason: TO_CLIENT },
  "input-required-result-non-tool-request": { kind: "not relayed", reason: PROMPTS },
  caching: { kind: "not relayed", reason: `${RESOURCES}; ${PROMPTS}` },
  "resources-list": { kind: "not relayed", reason: RESOURCES },
  "resources-read-text": { kind: "not relayed", reason: RESOURCES },
  "resources-read-binary": { kind: "not relayed", reason: RESOURCES },
  "resources-templates-read": { kind: "not relayed", reason: RESOURCES },
  "resources-subscribe": { kind: "not relayed", reason: RESOURCES },
  "resources-unsubscribe": { kind: "not relayed", reason: RESOURCES },
  "prompts-list": { kind: "not relayed", reason: PROMPTS },
  "prompts-get-simple": { kind: "not relayed", reason: PROMPTS },
  "prompts-get-with-args": { kind: "not relayed", reason: PROMPTS },
  "prompts-get-embedded-resource": { kind: "not relayed", reason: PROMPTS },
  "prompts-get-with-image": { kind: "not relayed", reason: PROMPTS },
};

/** A scenario that passes directly and fails through the fence. */
export interface Difference {
  revision: Revision;
  scenario: string;
  /** The fence's failed checks. */
  failures: string[];
  /** Why, or null when it is not listed (a defect). */
  listed: Listed | null;
}

/** Every scenario that passes directly and fails through the fence. */
export function differences(rows: readonly Row[]): Difference[] {
  return rows
    .filter((r) => r.direct.passed && !r.fence.passed)
    .map((r) => ({
      revision: r.revision,
      scenario: r.scenario,
      failures: r.fence.failures,
      listed: LISTED[`${r.revision}:${r.scenario}`] ?? LISTED[r.scenario] ?? null,
    }));
}
