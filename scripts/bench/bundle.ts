/**
 * What the deployed worker weighs and how long its module takes to start: the upload and
 * gzip sizes wrangler reports for `wrangler deploy --dry-run`, and the active CPU time of the
 * startup profile of `wrangler check startup` (best of three; measured locally, so only the
 * comparison between rows means much). A reference commit (the last one before the MCP
 * endpoint) is built beside this checkout from `git archive`, so each run shows the cost of
 * the endpoint on the same machine at the same moment.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Table } from "./table.ts";

const WRANGLER = resolve("node_modules/.bin/wrangler");

/** The last commit before the MCP endpoint: the reference row of the table. */
const BEFORE_MCP = "5367b17";

function wrangler(args: string[], cwd: string): string {
  const run = spawnSync(WRANGLER, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return `${run.stdout}\n${run.stderr}`;
}

function uploadSizes(cwd: string): { total: string; gzip: string } {
  const out = mkdtempSync(join(tmpdir(), "toolfence-dry-"));
  const text = wrangler(["deploy", "--dry-run", "--outdir", out], cwd);
  rmSync(out, { recursive: true, force: true });
  const m = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(text);
  return { total: m?.[1] ?? "?", gzip: m?.[2] ?? "?" };
}

function startupMs(cwd: string): number {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-startup-"));
  const runs = [1, 2, 3].map(() => {
    const text = wrangler(["check", "startup", "--outfile", join(profile, "p.cpuprofile")], cwd);
    return Number(/Active: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN);
  });
  rmSync(profile, { recursive: true, force: true });
  return Math.min(...runs);
}

/** A tree of `commit` in a temporary folder, sharing this checkout's node_modules. */
function treeOf(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), "toolfence-ref-"));
  const archive = spawnSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], {
    encoding: "utf8",
  });
  if (archive.status !== 0) throw new Error(`git archive ${commit}: ${archive.stderr}`);
  symlinkSync(resolve("node_modules"), join(dir, "node_modules"));
  return dir;
}

function row(label: string, cwd: string): string[] {
  const { total, gzip } = uploadSizes(cwd);
  return [label, total, gzip, startupMs(cwd).toFixed(1)];
}

/** The bundle table: the commit before the MCP endpoint, then this checkout. */
export function benchBundle(): Table {
  const before = treeOf(BEFORE_MCP);
  try {
    return {
      title: "Bundle and startup",
      note: "`wrangler deploy --dry-run` upload sizes; startup = active CPU ms of `wrangler check startup`, best of 3. The MCP SDK is in the bundle but evaluated on the first MCP request only (a dynamic import), so it adds size, not startup.",
      head: ["build", "bundle", "gzip", "startup ms"],
      rows: [
        row(`before the MCP endpoint (${BEFORE_MCP})`, before),
        row("this checkout", process.cwd()),
      ],
    };
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
}
