/**
 * What the deployed worker weighs and how long its module takes to start: the upload and
 * gzip sizes wrangler reports for `wrangler deploy --dry-run`, and the active CPU time of the
 * startup profile of `wrangler check startup` (best of three; measured locally, so only the
 * comparison between rows means much).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Table } from "./table.ts";

const WRANGLER = "node_modules/.bin/wrangler";

function wrangler(args: string[], cwd: string): string {
  const run = spawnSync(WRANGLER, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return `${run.stdout}\n${run.stderr}`;
}

function uploadSizes(): { total: string; gzip: string } {
  const out = mkdtempSync(join(tmpdir(), "toolfence-dry-"));
  const text = wrangler(["deploy", "--dry-run", "--outdir", out], process.cwd());
  rmSync(out, { recursive: true, force: true });
  const m = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(text);
  return { total: m?.[1] ?? "?", gzip: m?.[2] ?? "?" };
}

function startupMs(): number {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-startup-"));
  const runs = [1, 2, 3].map(() => {
    const text = wrangler(
      ["check", "startup", "--outfile", join(profile, "p.cpuprofile")],
      process.cwd(),
    );
    return Number(/Active: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN);
  });
  rmSync(profile, { recursive: true, force: true });
  return Math.min(...runs);
}

/** The bundle table: one row, this checkout. */
export function benchBundle(): Table {
  const { total, gzip } = uploadSizes();
  const startup = startupMs();
  return {
    title: "Bundle and startup",
    note: "`wrangler deploy --dry-run` upload sizes; startup = active CPU ms of `wrangler check startup`, best of 3. The MCP SDK is in the bundle but evaluated on the first MCP request only (a dynamic import), so it adds size, not startup.",
    head: ["bundle", "gzip", "startup ms"],
    rows: [[total, gzip, startup.toFixed(1)]],
  };
}
