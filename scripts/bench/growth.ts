import autocannon from "autocannon";
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";
import type { Table } from "./table.ts";

const AUTH = authHeaders(DEFAULT_KEY);
const NOOP = JSON.stringify({ tool: "noop", args: {} });

/** One run's endpoints and how many calls it has seen. */
interface Run {
  url: string;
  path: string;
  calls: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** ms of one request, body read. */
async function time(send: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await send();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`growth bench: HTTP ${res.status}`);
  return performance.now() - t0;
}

/**
 * p50 and p99 in ms of `times` requests to each run, alternating between the two runs, so
 * both see the same machine at the same moment and their ratio holds on a noisy host.
 */
async function paired(
  times: number,
  runs: [Run, Run],
  send: (run: Run) => Promise<Response>,
): Promise<[[number, number], [number, number]]> {
  const ms: [number[], number[]] = [[], []];
  for (let i = 0; i < times; i++) {
    for (const k of [0, 1] as const) ms[k].push(await time(() => send(runs[k])));
  }
  const stats = (xs: number[]): [number, number] => {
    xs.sort((a, b) => a - b);
    return [percentile(xs, 50), percentile(xs, 99)];
  };
  return [stats(ms[0]), stats(ms[1])];
}

/** Bring the run to `total` calls, as fast as the fence takes them. */
async function fill(run: Run, total: number): Promise<void> {
  const amount = total - run.calls;
  if (amount <= 0) return;
  const headers = { ...AUTH, "Content-Type": "application/json" };
  const r = await autocannon({
    url: run.url,
    connections: 8,
    amount,
    requests: [{ method: "POST", path: `${run.path}/calls`, headers, body: NOOP }],
  });
  run.calls += amount;
  if (r.non2xx + r.errors + r.timeouts > 0) throw new Error("growth bench: a filling call failed");
}

const CALL = {
  method: "POST",
  headers: { ...AUTH, "Content-Type": "application/json" },
  body: NOOP,
};

async function measure(runs: [Run, Run], samples: number) {
  const reads = samples / 5;
  const call = await paired(samples, runs, (run) => fetch(`${run.url}${run.path}/calls`, CALL));
  for (const run of runs) run.calls += samples;
  const page = (last: boolean) => (run: Run) =>
    fetch(`${run.url}${run.path}/audit?after=${last ? run.calls - 100 : 0}&limit=100`, {
      headers: AUTH,
    });
  const firstPage = await paired(reads, runs, page(false));
  const lastPage = await paired(reads, runs, page(true));
  const status = await paired(reads, runs, (run) =>
    fetch(`${run.url}${run.path}`, { headers: AUTH }),
  );
  return { call, firstPage, lastPage, status };
}

/** Latency of a call and of audit reads after 100 and after `large` earlier calls of a run. */
export async function benchGrowth(url: string, large: number, quick: boolean): Promise<Table> {
  const samples = quick ? 100 : 250;
  const id = Date.now().toString(36);
  const small: Run = { url, path: `/v1/runs/growth-${id}-small`, calls: 0 };
  const big: Run = { url, path: `/v1/runs/growth-${id}-large`, calls: 0 };
  await fill(small, 100);
  const started = Date.now();
  await fill(big, large);
  const fillSeconds = (Date.now() - started) / 1_000;
  const m = await measure([small, big], samples);
  const ms = (x: number) => x.toFixed(2);
  const row = (name: string, a: [number, number], b: [number, number], target: string) => {
    const ratio = b[0] / a[0];
    const verdict = target === "" ? "" : `${target}: ${ratio <= 1.2 ? "met" : "missed"}`;
    return [name, ms(a[0]), ms(a[1]), ms(b[0]), ms(b[1]), `${ratio.toFixed(2)}x`, verdict];
  };
  return {
    title: `Growth: one run after 100 and after ${large.toLocaleString("en")} calls`,
    note:
      `noop calls into one run, filled with autocannon (8 connections; ${large.toLocaleString("en")} ` +
      `calls took ${fillSeconds.toFixed(0)} s, ${Math.round(large / fillSeconds)} calls/s into one ` +
      `RunLedger). Then ${samples} calls and ${samples / 5} reads of each kind, sequential and ` +
      "timed one by one, alternating between a run of 100 calls and the large run, so both are " +
      "measured under the same load. Audit pages are 100 entries. Target: a call's p50 flat within 1.2x.",
    head: [
      "request",
      "p50 ms @100",
      "p99 ms @100",
      `p50 ms @${large / 1_000}k`,
      `p99 ms @${large / 1_000}k`,
      "p50 ratio",
      "target",
    ],
    rows: [
      row("POST a call (noop)", ...m.call, "≤ 1.2x"),
      row("GET first audit page", ...m.firstPage, ""),
      row("GET last audit page", ...m.lastPage, ""),
      row("GET run status", ...m.status, ""),
    ],
  };
}
