/**
 * `npm run bench:paired -- <commitA> <commitB> [--quick]`: the CPU per call of each path of the
 * end-to-end bench, one build against another, paired. Each commit is checked out into a
 * temporary git worktree (node_modules linked to this one's), each gets its own `wrangler dev`
 * (the fence with the demo's tools, as that commit lays them out), and every path runs against
 * the two in turns, in each round, the order reversed every other round. The load is this
 * checkout's client code, whatever bench the commits carry. Figures, never assertions.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type autocannon from "autocannon";
import {
  commentRequest,
  measureRows,
  median,
  NOOP,
  ROUNDS,
  rotating,
  type Scenario,
  seedTickets,
} from "./bench/http.ts";
import { startChecked } from "./bench/servers.ts";
import { DISK_STATE } from "./bench/state.ts";
import { markdown, plain, type Table } from "./bench/table.ts";
import { parseCli } from "./lib/cli.ts";
import type { DevServer } from "./lib/dev-server.ts";
import { authHeaders, DEFAULT_KEY } from "./lib/target.ts";

const USAGE = "usage: npm run bench:paired -- <commitA> <commitB> [--quick]";

const { values: flags, positionals } = parseCli(
  { options: { quick: { type: "boolean", default: false } }, allowPositionals: true },
  USAGE,
);
if (positionals.length !== 2) {
  console.error(`two commits, not ${positionals.length}\n${USAGE}`);
  process.exit(2);
}
const duration = flags.quick ? 1 : 4;

function git(...args: string[]): string {
  return execFileSync("git", args, { encoding: "utf8" }).trim();
}

/** One side of the pair: a commit checked out in a temporary worktree. */
interface Side {
  commit: string;
  label: string;
  dir: string;
}

/** Check `commit` out into a worktree under `root`, this checkout's node_modules linked in. */
function checkout(ref: string, root: string): Side {
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  const dir = join(root, commit.slice(0, 12));
  git("worktree", "add", "--detach", "--quiet", dir, commit);
  symlinkSync(realpathSync("node_modules"), join(dir, "node_modules"));
  liftRunCaps(dir);
  return { commit, label: git("log", "-1", "--format=%h %s", commit), dir };
}

/** Open runs a side's demo policy allows per key and per tenant, where its policy caps them. */
const OPEN_RUNS = 1_000_000;

/**
 * The paths open a new run every few calls, thousands of runs a side: a build that caps the
 * runs a key may have open (100 by default) would refuse most of them, and the pair would
 * compare refusals with calls. Its demo policy gets caps no path reaches; the count behind
 * them is still kept, as the build keeps it.
 */
function liftRunCaps(dir: string): void {
  if (!readFileSync(join(dir, "src/core/policy.ts"), "utf8").includes("max_open_runs_per_key"))
    return;
  for (const file of ["demo/contracts/policy.json", "contracts/policy.json"]) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    const policy = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    policy.max_open_runs_per_key = OPEN_RUNS;
    policy.max_open_runs_per_tenant = OPEN_RUNS;
    writeFileSync(path, `${JSON.stringify(policy, null, 2)}\n`);
  }
}

/**
 * Fail loudly unless a side answers the paths as the table labels them: a `noop` applied over
 * REST and over MCP, and the repeated read a cache hit from its second call.
 */
async function probe(url: string, label: string): Promise<void> {
  const run = `probe-${Date.now().toString(36)}`;
  const call = (body: string) =>
    fetch(`${url}/v1/runs/${run}/calls`, { method: "POST", headers: JSON_HEADERS, body });
  const noop = await call(NOOP);
  if (noop.status !== 200) throw new Error(`${label}: a noop got HTTP ${noop.status}`);
  await call(REPEATED_READ);
  const hit = (await call(REPEATED_READ)).headers.get("X-Cache") ?? "none";
  if (!hit.startsWith("hit")) throw new Error(`${label}: the repeated read was no hit (${hit})`);
  const response = await fetch(`${url}/v1/runs/${run}/mcp`, {
    method: "POST",
    headers: MCP_HEADERS,
    body: MCP_NOOP,
  });
  const text = await response.text();
  const answer = JSON.parse(text) as { result?: { isError?: boolean } };
  if (response.status !== 200 || answer.result === undefined || answer.result.isError === true)
    throw new Error(`${label}: a noop over MCP got HTTP ${response.status}: ${text.slice(0, 300)}`);
}

const JSON_HEADERS = { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" };
const REPEATED_READ = JSON.stringify({
  tool: "fetch_service_logs",
  args: { service: "checkout", window: "5m" },
});

const MCP_HEADERS = { ...JSON_HEADERS, Accept: "application/json, text/event-stream" };
const MCP_NOOP = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "noop", arguments: {} },
});

/** A `noop` over MCP: one stateless JSON-RPC `tools/call`, its run rotated every 20 calls. */
function mcpNoop(prefix: string): autocannon.Request {
  let i = 0;
  return {
    method: "POST",
    headers: MCP_HEADERS,
    setupRequest: (req) => ({
      ...req,
      path: `/v1/runs/${prefix}-${Math.floor(i++ / 20)}/mcp`,
      body: MCP_NOOP,
    }),
  };
}

/**
 * The paths, each a request of its own per side (a request counts its calls), and the status
 * every answer must have when it is not 200.
 */
const PATHS: Array<{
  name: string;
  request: (prefix: string) => autocannon.Request;
  expect?: number;
}> = [
  {
    name: "cache hit (repeated read)",
    request: (p) => rotating(`${p}-hit`, 20, () => REPEATED_READ),
  },
  {
    name: "read miss (fetch_service_logs, new args each call)",
    request: (p) =>
      rotating(`${p}-miss`, 20, (i) =>
        JSON.stringify({ tool: "fetch_service_logs", args: { service: `svc-${i}`, window: "5m" } }),
      ),
  },
  { name: "mutation (add_comment)", request: (p) => commentRequest(p, `${p}-com`) },
  {
    name: "mutation (create_ticket, target claim)",
    request: (p) =>
      rotating(`${p}-mut`, 3, (i) =>
        JSON.stringify({
          tool: "create_ticket",
          args: { ticket_id: `B-${p}-${i}` },
          idempotency_key: `k-paired-${p}-${i}`,
        }),
      ),
  },
  {
    name: "refused call (malformed body, recorded)",
    request: (p) => rotating(`${p}-bad`, 20, () => '{"tool":"noop","args":{}'),
    expect: 400,
  },
  { name: "noop call", request: (p) => rotating(`${p}-noop`, 20, () => NOOP) },
  {
    name: "noop call, a new run every 1000 calls",
    request: (p) => rotating(`${p}-noop-long`, 1000, () => NOOP),
  },
  { name: "noop over MCP (tools/call)", request: (p) => mcpNoop(`${p}-mcp`) },
];

const pct = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;

/**
 * Each path against A and B in turns (measureRows runs A as its "fence" and B as its "floor"),
 * and the table: the worker's workerd CPU ms per call of each (the median round), the change
 * (the median of the rounds' B/A ratios) and its spread (the least and greatest round's).
 */
async function compare(a: DevServer, b: DevServer, sides: [Side, Side]): Promise<Table> {
  const prefix = `paired-${Date.now().toString(36)}`;
  await probe(a.url, "A");
  await probe(b.url, "B");
  await seedTickets(a.url, prefix);
  await seedTickets(b.url, prefix);
  const list: Scenario[] = PATHS.flatMap((path) => [
    {
      name: `${path.name} [A]`,
      server: "fence" as const,
      request: path.request(prefix),
      expect: path.expect,
    },
    {
      name: `${path.name} [B]`,
      server: "floor" as const,
      request: path.request(prefix),
      expect: path.expect,
    },
  ]);
  const servers = { fence: a.url, floor: b.url, groups: { fence: a.group, floor: b.group } };
  const figures = await measureRows(servers, list, duration);
  const rows = PATHS.map((path, i) => {
    const [fa, fb] = [figures[2 * i], figures[2 * i + 1]];
    if (fa === undefined || fb === undefined) throw new Error(`no figures for ${path.name}`);
    const ratios = fb.workerCpu.map((x, r) => x / (fa.workerCpu[r] ?? Number.NaN));
    const sorted = [...ratios].sort((x, y) => x - y);
    const [least, most] = [sorted[0] ?? Number.NaN, sorted.at(-1) ?? Number.NaN];
    return [
      path.name,
      median(fa.workerCpu).toFixed(2),
      median(fb.workerCpu).toFixed(2),
      pct(median(ratios) - 1),
      `${pct(least - 1)} to ${pct(most - 1)}`,
      `${Math.round(median(fa.rps))} / ${Math.round(median(fb.rps))}`,
      `${fa.failed} / ${fb.failed}`,
    ];
  });
  const [sa, sb] = sides;
  return {
    title: "Paired CPU per call, one build against another",
    note:
      `A: ${sa.label}. B: ${sb.label}. Two \`wrangler dev\` fences with the demo's tools, one per commit, ` +
      `state on disk, wrangler's local tracing on (as the end-to-end table); autocannon, 8 connections, ` +
      `${ROUNDS} rounds of ${duration} s per path and side, A and B of each path one right after the other, ` +
      "in reverse order every other round. CPU: ms per call of the workerd that runs each fence's worker " +
      "and objects, the median round. Change: the median over rounds of B's CPU per call over A's in the " +
      "same round; spread: the least and the greatest round's.",
    head: [
      "path",
      "A CPU ms/call",
      "B CPU ms/call",
      "change",
      "spread",
      "req/s A / B",
      "non-2xx A / B",
    ],
    rows,
  };
}

function load(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(", ");
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "toolfence-paired-"));
  const sides: Side[] = [];
  const servers: DevServer[] = [];
  const interrupted = () => {
    for (const s of servers) s.stop();
    for (const side of sides) git("worktree", "remove", "--force", side.dir);
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  try {
    for (const ref of positionals) sides.push(checkout(ref, root));
    mkdirSync(DISK_STATE, { recursive: true });
    for (const side of sides) {
      process.stderr.write(`starting wrangler dev for ${side.label}…\n`);
      servers.push(await startChecked({ stateRoot: DISK_STATE, cwd: side.dir }));
    }
    const [a, b] = servers;
    const [sa, sb] = sides;
    if (a === undefined || b === undefined || sa === undefined || sb === undefined) return;
    const before = load();
    const table = await compare(a, b, [sa, sb]);
    process.stdout.write(`\n${plain(table)}\n`);
    process.stdout.write(`${markdown(table)}\n`);
    process.stdout.write(
      `- ${new Date().toISOString()}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? "unknown"}), ` +
        `load average (1, 5, 15 min) before: ${before}; after: ${load()}\n`,
    );
  } finally {
    process.off("SIGINT", interrupted);
    for (const s of servers) s.stop();
    for (const side of sides) git("worktree", "remove", "--force", side.dir);
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(
    `bench:paired: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exitCode = 1;
});
