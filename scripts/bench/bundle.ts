/**
 * What the deployed worker weighs and how long its module takes to start: the upload and
 * gzip sizes wrangler reports for `wrangler deploy --dry-run`, and the active CPU time of the
 * startup profile of `wrangler check startup` (best of seven, the builds in turns; measured
 * locally, so only the comparison between rows means much). The same checkout is built twice,
 * as deployed (minified, wrangler.toml) and with `--minify=false`, so each run shows what
 * minifying saves on the same machine at the same moment.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Table } from "./table.ts";

const WRANGLER = resolve("node_modules/.bin/wrangler");

/** Startup profiles per build; the best is the row's figure. */
const STARTUP_RUNS = 7;
/** The targets: the upload (KiB) and the startup's active CPU (ms). */
const MAX_UPLOAD_KIB = 900;
const MAX_STARTUP_MS = 20;

function wrangler(args: string[]): string {
  const run = spawnSync(WRANGLER, args, {
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return `${run.stdout}\n${run.stderr}`;
}

function uploadSizes(extra: string[]): { total: number; gzip: number } {
  const out = mkdtempSync(join(tmpdir(), "toolfence-dry-"));
  const text = wrangler(["deploy", "--dry-run", "--outdir", out, ...extra]);
  rmSync(out, { recursive: true, force: true });
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(text);
  return { total: Number(m?.[1] ?? Number.NaN), gzip: Number(m?.[2] ?? Number.NaN) };
}

/** One startup profile of the build `extra` selects: its active CPU ms. */
function startupMs(extra: string[], profile: string): number {
  const args = ["check", "startup", "--outfile", join(profile, "p.cpuprofile")];
  const text = wrangler(extra.length > 0 ? [...args, `--args=${extra.join(" ")}`] : args);
  return Number(/Active: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN);
}

function verdict(value: number, max: number, unit: string): string {
  return `≤ ${max} ${unit}: ${value <= max ? "met" : "missed"}`;
}

/** Each build's row; their startup profiles taken in turns, so a busy minute falls on both. */
function rows(builds: { label: string; extra: string[] }[]): string[][] {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-startup-"));
  const runs = builds.map((): number[] => []);
  for (let i = 0; i < STARTUP_RUNS; i++) {
    builds.forEach((b, j) => {
      runs[j]?.push(startupMs(b.extra, profile));
    });
  }
  rmSync(profile, { recursive: true, force: true });
  return builds.map((b, j) => {
    const { total, gzip } = uploadSizes(b.extra);
    const own = runs[j] ?? [];
    const best = Math.min(...own);
    return [
      b.label,
      `${total.toFixed(2)} KiB`,
      `${gzip.toFixed(2)} KiB`,
      verdict(total, MAX_UPLOAD_KIB, "KiB"),
      `${best.toFixed(1)} (${own.map((r) => r.toFixed(1)).join(", ")})`,
      verdict(best, MAX_STARTUP_MS, "ms"),
    ];
  });
}

/** The bundle table: this checkout as deployed, then the same build unminified. */
export function benchBundle(): Table {
  return {
    title: "Bundle and startup",
    note: `Upload sizes as \`wrangler deploy --dry-run\` reports them; startup = the active CPU ms of \`wrangler check startup\` (which builds the worker the same way and profiles its startup in a local workerd), the best of ${STARTUP_RUNS} runs, each run in brackets, the two builds' runs taken in turns. The second row is the same checkout built with \`--minify=false\`. \`npm run bench -- --bundle\` measures and rewrites this table alone. The MCP SDK is in the bundle but evaluated on the first MCP request only (a dynamic import), so it adds size and parse time, not evaluation; so does the OpenTelemetry SDK, loaded only when an OTLP endpoint is configured; the app's routes are built at the first request too. \`npm run check\` fails when a module is in the bundle twice; the SDK's client and server packages each ship their own build of its protocol core, so that core is in once per package (their shared JSON Schema validator is aliased to one copy).`,
    head: ["build", "upload", "gzip", "target", "startup ms", "target"],
    rows: rows([
      { label: "as deployed (minified)", extra: [] },
      { label: "unminified (`--minify=false`)", extra: ["--minify=false"] },
    ]),
  };
}
