/**
 * `npm run bench [-- --quick]`: what the fence costs, as figures, never as assertions.
 * Prints each table and writes them all to BENCHMARKS.md with the machine and command.
 * `npm run bench -- --scale [--quick]` runs only the load simulation and prints it;
 * `npm run bench -- --profile [--quick]` only the CPU profiles of the paths with a CPU target
 * beside their floors; `npm run bench -- --bundle` only the bundle and startup table, which it
 * prints and rewrites in BENCHMARKS.md; `npm run bench -- --telemetry [--quick]` likewise the
 * cost of tracing, on and off; `npm run bench -- --result-rules [--quick]` the result rules' cost
 * per KiB; `npm run bench -- --end-to-end [--quick]` the end-to-end table against the floor;
 * `npm run bench -- --guardrails` what the result rules catch and miss on outside corpora;
 * `npm run bench -- --guard [--quick]` measures the end-to-end and keyed-mutation tables again,
 * prints them and fails when a path's worker CPU ratio to its floor is more than 10 % above the
 * one BENCHMARKS.md records (scripts/bench/cpu-guard.ts); it writes nothing.
 * A run rewrites only the sections of the tables it measured: every other section of
 * BENCHMARKS.md, hand-written ones too, is kept.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { benchBundle } from "./bench/bundle.ts";
import { benchChain } from "./bench/chain.ts";
import { GUARD_MARGIN, guardVerdicts, verdictTable } from "./bench/cpu-guard.ts";
import { benchCritical } from "./bench/critical.ts";
import { benchmarksDoc, hasSection } from "./bench/doc.ts";
import { benchGate } from "./bench/gate.ts";
import { benchGrowth } from "./bench/growth.ts";
import { benchGuard } from "./bench/guard.ts";
import { benchGuardrails } from "./bench/guardrails.ts";
import { benchHttp } from "./bench/http.ts";
import { benchKeyed } from "./bench/keyed.ts";
import { benchProfile } from "./bench/profile.ts";
import { benchScale } from "./bench/scale.ts";
import { startFence, withFenceAndFloor } from "./bench/servers.ts";
import { benchState, DISK_STATE } from "./bench/state.ts";
import { markdown, plain, type Table } from "./bench/table.ts";
import { benchTelemetry } from "./bench/telemetry.ts";
import { parseCli, wholeNumber } from "./lib/cli.ts";

const USAGE = `usage: npm run bench [-- [--quick] [--growth=<calls>]]
       npm run bench -- --scale [--quick]
       npm run bench -- --profile [--quick]
       npm run bench -- --bundle
       npm run bench -- --telemetry [--quick]
       npm run bench -- --result-rules [--quick]
       npm run bench -- --guardrails
       npm run bench -- --end-to-end [--quick]
       npm run bench -- --guard [--quick]`;

const { values: flags } = parseCli(
  {
    options: {
      quick: { type: "boolean", default: false },
      growth: { type: "string" },
      scale: { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      bundle: { type: "boolean", default: false },
      telemetry: { type: "boolean", default: false },
      "result-rules": { type: "boolean", default: false },
      guardrails: { type: "boolean", default: false },
      "end-to-end": { type: "boolean", default: false },
      guard: { type: "boolean", default: false },
    },
  },
  USAGE,
);
const quick = flags.quick;
/** Calls in the large run of the growth bench. */
const growth =
  flags.growth === undefined
    ? quick
      ? 5_000
      : 50_000
    : wholeNumber("growth", flags.growth, 100, USAGE);
const loadBefore = loadavg();
const cpuBefore = cpuTimes();

/** The machine's CPU time counters (Linux /proc/stat, in ticks): all, and stolen by the host. */
function cpuTimes(): { total: number; steal: number } | null {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/** Share of CPU time the hypervisor gave to others during the bench: a noisy host shows here. */
function stolen(): string {
  const now = cpuTimes();
  if (cpuBefore === null || now === null || now.total === cpuBefore.total) return "unknown";
  return `${((100 * (now.steal - cpuBefore.steal)) / (now.total - cpuBefore.total)).toFixed(1)}%`;
}

function load(l: number[]): string {
  return l.map((x) => x.toFixed(1)).join(", ");
}

function machine(): string {
  const wrangler = JSON.parse(readFileSync("node_modules/wrangler/package.json", "utf8")) as {
    version: string;
  };
  return [
    `- Date: ${new Date().toISOString()}`,
    `- Command: \`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\``,
    `- Machine: ${availableParallelism()} CPUs (nproc), ${cpus()[0]?.model ?? "unknown CPU"}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB`,
    `- Node ${process.version}, wrangler ${wrangler.version}`,
    `- Load average (1, 5, 15 min) before: ${load(loadBefore)}; after: ${load(loadavg())}`,
    `- CPU time stolen by the host during the bench (/proc/stat steal): ${stolen()}`,
  ].join("\n");
}

function show(tables: Table[], t: Table): void {
  tables.push(t);
  process.stdout.write(`\n${plain(t)}`);
}

/** The load simulation alone, against a fresh fence; printed, not written to BENCHMARKS.md. */
async function scale(): Promise<void> {
  process.stderr.write("starting wrangler dev…\n");
  const dev = await startFence(DISK_STATE);
  try {
    process.stdout.write(`\n${plain(await benchScale(dev.url, quick))}\n${machine()}\n`);
  } finally {
    dev.stop();
  }
}

/**
 * The CPU profiles alone, against a fresh fence and floor, both unminified so the profiles
 * name each function as the source does; printed, not written.
 */
async function profile(): Promise<void> {
  process.stderr.write("starting wrangler dev, unminified: the fence and the floor…\n");
  const tables = await withFenceAndFloor(
    DISK_STATE,
    (fence, floor) => benchProfile({ fence, floor }, quick),
    true,
    false,
  );
  process.stdout.write(`\n${tables.map(plain).join("\n")}\n${machine()}\n`);
}

/** The bundle and startup table alone: printed, and put in place of its section of BENCHMARKS.md. */
function bundle(): void {
  rewriteApart(benchBundle());
}

/** The tracing table alone: printed, and put in place of its section (or added at the end). */
async function telemetry(): Promise<void> {
  process.stderr.write("starting wrangler dev: two fences, telemetry on and off…\n");
  rewriteApart(await benchTelemetry(DISK_STATE, quick), true);
}

/** The result rules' table alone: printed, and put in place of (or after) its section. */
async function resultRules(): Promise<void> {
  rewriteApart(await benchGuard(quick), true);
}

/**
 * The CPU guard: the end-to-end and keyed tables measured again against a fresh fence and
 * floor, printed, and each guarded path's CPU ratio held against BENCHMARKS.md's; the run fails
 * naming each path past its limit. BENCHMARKS.md is not written.
 */
async function cpuGuard(): Promise<void> {
  const doc = readFileSync("BENCHMARKS.md", "utf8");
  process.stderr.write("starting wrangler dev: the fence and the floor…\n");
  const tables = await withFenceAndFloor(DISK_STATE, async (fence, floor) => {
    const groups = { fence: fence.group, floor: floor.group };
    const servers = { fence: fence.url, floor: floor.url, groups };
    process.stderr.write("end to end…\n");
    const endToEnd = await benchHttp(servers, quick);
    process.stderr.write("mutations against keyed floors…\n");
    return [endToEnd, await benchKeyed(servers, quick)];
  });
  const verdicts = guardVerdicts(doc, tables);
  const shown = [...tables, verdictTable(verdicts)];
  process.stdout.write(`\n${shown.map(plain).join("\n")}\n${machine()}\n`);
  const failed = verdicts.filter((v) => !v.passed).map((v) => v.path);
  if (failed.length > 0) {
    const past = `${100 * GUARD_MARGIN} % above the recorded ratio`;
    process.stderr.write(`guard: CPU per call over its floor ${past}: ${failed.join(", ")}\n`);
    process.exitCode = 1;
  }
}

/** Recall and false positives on the outside corpora: printed with an example of each miss, and put in place of (or after) its section. */
function guardrails(): void {
  const { table, details } = benchGuardrails();
  process.stdout.write(`\n${details}\n`);
  rewriteApart(table, true);
}

/** The end-to-end table alone, against a fresh fence and floor: printed, and put in place of its section. */
async function endToEnd(): Promise<void> {
  process.stderr.write("starting wrangler dev: the fence and the floor…\n");
  const table = await withFenceAndFloor(DISK_STATE, (fence, floor) => {
    const groups = { fence: fence.group, floor: floor.group };
    return benchHttp({ fence: fence.url, floor: floor.url, groups }, quick);
  });
  rewriteApart(table);
}

/** Print `table` and put it in place of its section of BENCHMARKS.md, measured apart. */
function rewriteApart(table: Table, append = false): void {
  process.stdout.write(`\n${plain(table)}\n${machine()}\n`);
  const doc = readFileSync("BENCHMARKS.md", "utf8");
  if (!hasSection(doc, table.title) && !append)
    throw new Error(`BENCHMARKS.md has no ${table.title} section`);
  const apart = `${markdown(table)}\nMeasured apart from the other tables:\n\n${machine()}\n`;
  writeFileSync("BENCHMARKS.md", benchmarksDoc(doc, null, [apart]));
  process.stderr.write(`rewrote the ${table.title} section of BENCHMARKS.md\n`);
}

async function main(): Promise<void> {
  if (flags.scale) return scale();
  if (flags.profile) return profile();
  if (flags.bundle) return bundle();
  if (flags.telemetry) return telemetry();
  if (flags["result-rules"]) return resultRules();
  if (flags.guardrails) return guardrails();
  if (flags["end-to-end"]) return endToEnd();
  if (flags.guard) return cpuGuard();
  const tables: Table[] = [];
  process.stderr.write("gate against floor…\n");
  for (const t of await benchGate(quick)) show(tables, t);
  process.stderr.write("audit chain per entry…\n");
  show(tables, await benchChain(quick));
  process.stderr.write("result rules per KiB…\n");
  show(tables, await benchGuard(quick));
  process.stderr.write("bundle and startup…\n");
  show(tables, benchBundle());
  process.stderr.write("starting wrangler dev: the fence and the floor…\n");
  await withFenceAndFloor(DISK_STATE, async (dev, floor) => {
    const interrupted = () => {
      floor.stop();
      dev.stop();
      process.exit(130);
    };
    process.once("SIGINT", interrupted);
    try {
      process.stderr.write("end to end…\n");
      const groups = { fence: dev.group, floor: floor.group };
      const servers = { fence: dev.url, floor: floor.url, groups };
      show(tables, await benchHttp(servers, quick));
      process.stderr.write("one connection…\n");
      show(tables, await benchCritical(servers, quick));
      process.stderr.write("mutations against keyed floors…\n");
      show(tables, await benchKeyed(servers, quick));
      process.stderr.write("growth…\n");
      show(tables, await benchGrowth(dev.url, growth, quick));
    } finally {
      process.off("SIGINT", interrupted);
    }
  });
  process.stderr.write("state on disk and on tmpfs, tracing on and off…\n");
  for (const t of await benchState(quick)) show(tables, t);
  process.stderr.write("tracing on and off…\n");
  show(tables, await benchTelemetry(DISK_STATE, quick));
  const intro = [
    "# Benchmarks",
    "",
    "Written by `npm run bench`; figures, not assertions. Each table's rows ran in one bench run,",
    "side by side, so the ratios hold on a noisy machine better than the absolute numbers do.",
    "A run rewrites only its tables' sections; the others are kept as they are.",
    "",
    machine(),
  ].join("\n");
  const old = existsSync("BENCHMARKS.md") ? readFileSync("BENCHMARKS.md", "utf8") : "";
  writeFileSync("BENCHMARKS.md", benchmarksDoc(old, intro, tables.map(markdown)));
  process.stderr.write("wrote BENCHMARKS.md\n");
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
