/**
 * What the deployed worker weighs and how long its module takes to start: the upload and
 * gzip sizes wrangler reports for `wrangler deploy --dry-run`, and the active CPU time of the
 * startup profile of `wrangler check startup` (best of seven, the builds in turns; measured
 * locally, so only the comparison between rows means much). The same checkout is built twice,
 * as deployed (minified, wrangler.toml) and with `--minify=false`, so each run shows what
 * minifying saves on the same machine at the same moment.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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

/** What a build uploads, and esbuild's bytes in its output by where they come from. */
interface Upload {
  total: number;
  gzip: number;
  parts: Map<string, number>;
}

/** The package a bundled input belongs to (`@scope/name`, `name`), or `src/<folder>`. */
function partOf(input: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
  if (pkg !== undefined) return pkg;
  const folder = /^(src|contracts)\/([^/]+)\//.exec(input);
  return folder === null ? input : `${folder[1]}/${folder[2]}`;
}

function uploadSizes(extra: string[]): Upload {
  const out = mkdtempSync(join(tmpdir(), "toolfence-dry-"));
  const meta = join(out, "meta.json");
  const text = wrangler(["deploy", "--dry-run", "--outdir", out, "--metafile", meta, ...extra]);
  const parts = new Map<string, number>();
  const { outputs } = JSON.parse(readFileSync(meta, "utf8")) as {
    outputs: Record<string, { inputs?: Record<string, { bytesInOutput: number }> }>;
  };
  for (const [file, output] of Object.entries(outputs)) {
    if (!file.endsWith(".js")) continue;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs ?? {})) {
      const part = partOf(input);
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  }
  rmSync(out, { recursive: true, force: true });
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(text);
  return { total: Number(m?.[1] ?? Number.NaN), gzip: Number(m?.[2] ?? Number.NaN), parts };
}

/** The largest parts of a build, in KiB, for the table's note. */
function anatomy(parts: Map<string, number>, count: number): string {
  return [...parts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([part, bytes]) => `${part} ${(bytes / 1024).toFixed(1)}`)
    .join(", ");
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
function rows(builds: { label: string; extra: string[] }[]): {
  rows: string[][];
  parts: Map<string, number>;
} {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-startup-"));
  const runs = builds.map((): number[] => []);
  for (let i = 0; i < STARTUP_RUNS; i++) {
    builds.forEach((b, j) => {
      runs[j]?.push(startupMs(b.extra, profile));
    });
  }
  rmSync(profile, { recursive: true, force: true });
  const uploads = builds.map((b) => uploadSizes(b.extra));
  const table = builds.map((b, j) => {
    const { total, gzip } = uploads[j] ?? { total: Number.NaN, gzip: Number.NaN };
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
  // The first build is the one deployed.
  return { rows: table, parts: uploads[0]?.parts ?? new Map() };
}

/** The bundle table: this checkout as deployed, then the same build unminified. */
export function benchBundle(): Table {
  const measured = rows([
    { label: "as deployed (minified)", extra: [] },
    { label: "unminified (`--minify=false`)", extra: ["--minify=false"] },
  ]);
  return {
    title: "Bundle and startup",
    note: `Upload sizes as \`wrangler deploy --dry-run\` reports them; startup = the active CPU ms of \`wrangler check startup\` (which builds the worker the same way and profiles its startup in a local workerd), the best of ${STARTUP_RUNS} runs, each run in brackets, the two builds' runs taken in turns. The second row is the same checkout built with \`--minify=false\`. \`npm run bench -- --bundle\` measures and rewrites this table alone. Startup evaluates the fence's contracts and policy (checked there, so a deploy with a broken policy fails), the Durable Object classes, the scheduled drift check and the OpenTelemetry API: the app (its routes, the console, OAuth, Hono, jose and the OAuth provider) is loaded at an isolate's first request, the MCP SDK at its first MCP request, MCP upstream call or drift check, the OpenTelemetry SDK only when an OTLP endpoint is configured, and \`node:crypto\` at the first hash; each is paid by the first request that needs it, and never by an isolate that does not. Code that is bundled but not evaluated costs startup little: parse is not most of it (the unminified row, twice the bytes, starts about as fast). The largest parts of the minified upload, in KiB (esbuild's bytes in output, by package or source folder): ${anatomy(measured.parts, 12)}. The MCP SDK's two packages (the server for the \`/mcp\` edge, the client for MCP upstreams; each is published with its own build of the SDK's protocol core, so that core is in once per package), zod (the SDK's schemas) and the OAuth provider are most of the upload; the target is out of reach while the fence carries them. \`npm run check\` fails when a module is in the bundle twice (the two SDK cores are different builds, and their shared JSON Schema validator is aliased to one copy).`,
    head: ["build", "upload", "gzip", "target", "startup ms", "target"],
    rows: measured.rows,
  };
}
