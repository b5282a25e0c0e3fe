/**
 * `npm run fuzz -- --url http://127.0.0.1:8787 --n 2000 --seed 7`: drive a running fence
 * with generated calls, spread over runs, and print one JSON line. Exits non-zero when an
 * invalid call was applied (`escaped`), a run went over its mutation budget, an answer is
 * not a row of the decision table, the fence itself failed (500), or a run's audit does
 * not hold one settled entry per call (none pending, none abandoned). Ticket ids include dot
 * segments and their encodings, which must be blocked before any upstream sees them.
 */
import fc from "fast-check";
import { DECISION_TABLE, type Reason } from "../src/core/reasons.ts";
import { type FuzzCall, runOfCalls } from "../test/fuzz/arbitraries.ts";
import { requestInit, SUCCESSES } from "../test/fuzz/send.ts";
import { parseCli, wholeNumber } from "./lib/cli.ts";
import { apiKey, authHeaders, targetUrl } from "./lib/target.ts";

const USAGE = `usage: npm run fuzz -- [--url http://127.0.0.1:8787] [--n 1000] [--seed 7]
         [--per-run 20] [--concurrency 8] [--max-seconds 300] [--key tf_...] [--allow-remote]`;

const { values: opts } = parseCli(
  {
    options: {
      url: { type: "string", default: "http://127.0.0.1:8787" },
      n: { type: "string", default: "1000" },
      seed: { type: "string", default: "7" },
      "per-run": { type: "string", default: "20" },
      concurrency: { type: "string", default: "8" },
      "max-seconds": { type: "string", default: "300" },
      key: { type: "string" },
      "allow-remote": { type: "boolean", default: false },
    },
  },
  USAGE,
);

/** Bounds: a fuzz run is a test, not a load generator. */
const n = Math.min(wholeNumber("n", opts.n, 1, USAGE), 100_000);
const seed = wholeNumber("seed", opts.seed, 0, USAGE);
const perRun = Math.min(wholeNumber("per-run", opts["per-run"], 1, USAGE), 1_000);
const concurrency = Math.min(wholeNumber("concurrency", opts.concurrency, 1, USAGE), 32);
const maxSeconds = wholeNumber("max-seconds", opts["max-seconds"], 1, USAGE);
const deadline = Date.now() + Math.min(maxSeconds, 3_600) * 1_000;
const base = targetUrl(opts.url, opts["allow-remote"]);
const auth = authHeaders(apiKey(opts.key));
const REQUEST_TIMEOUT_MS = 15_000;

const tally = {
  n: 0,
  runs: 0,
  blocked: 0,
  retried: 0,
  escalated: 0,
  applied: 0,
  replayed: 0,
  cached: 0,
  budget_used: 0,
  escaped: 0,
  over_budget: 0,
  off_table: 0,
  fence_errors: 0,
  audit_mismatch: 0,
  abandoned: 0,
};

function complain(what: string, detail: unknown): void {
  process.stderr.write(`${what}: ${JSON.stringify(detail)}\n`);
}

function count(decision: string): void {
  const field = (
    {
      block: "blocked",
      retry: "retried",
      escalate: "escalated",
      applied: "applied",
      replayed: "replayed",
      cached: "cached",
    } as const
  )[decision as "block"];
  if (field !== undefined) tally[field]++;
}

async function propose(runId: string, call: FuzzCall): Promise<void> {
  const url = new URL(`/v1/runs/${runId}/calls`, base);
  const init = requestInit(call, auth);
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  let body: { decision?: string; reason?: string } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = {};
  }
  tally.n++;
  count(body.decision ?? "");
  const success = res.status === 200 && SUCCESSES.has(body.decision ?? "");
  if (success && !call.valid) {
    tally.escaped++;
    complain("escaped", { run: runId, call });
  }
  const rule = DECISION_TABLE[body.reason as Reason];
  const onTable =
    success ||
    (rule !== undefined && rule.status === res.status && rule.decision === body.decision);
  if (!onTable) {
    tally.off_table++;
    complain("off the decision table", { status: res.status, body: text.slice(0, 300) });
  }
  if (res.status === 500) tally.fence_errors++;
}

interface RunStatus {
  budget: { mutations: { used: number; limit: number } };
  decisions: Record<string, number>;
}

async function closeRun(runId: string, sent: number): Promise<void> {
  const res = await fetch(new URL(`/v1/runs/${runId}`, base), {
    headers: auth,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const view = (await res.json()) as RunStatus;
  const { used, limit } = view.budget.mutations;
  tally.budget_used += used;
  if (used > limit) {
    tally.over_budget++;
    complain("over budget", { run: runId, used, limit });
  }
  const audited = Object.values(view.decisions).reduce((a, b) => a + b, 0);
  // A healthy fence settles every call it admitted: nothing is left pending, and nothing is
  // abandoned (the alarm's verdict on a call whose worker died).
  tally.abandoned += view.decisions.abandoned ?? 0;
  if (
    audited !== sent ||
    (view.decisions.pending ?? 0) > 0 ||
    (view.decisions.abandoned ?? 0) > 0
  ) {
    tally.audit_mismatch++;
    complain("audit mismatch", { run: runId, sent, decisions: view.decisions });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const runs = Math.ceil(n / perRun);
  const batches = fc.sample(runOfCalls(perRun, perRun), { seed, numRuns: runs });
  const last = batches.at(-1);
  if (last !== undefined) last.length = n - perRun * (runs - 1);
  const prefix = `fuzz-${seed}-${started.toString(36)}`;
  let next = 0;
  let stoppedEarly = false;
  async function worker(): Promise<void> {
    for (let b = next++; b < batches.length; b = next++) {
      if (Date.now() > deadline) {
        stoppedEarly = true;
        return;
      }
      const runId = `${prefix}-${b}`;
      const batch = batches[b] ?? [];
      for (const call of batch) await propose(runId, call);
      await closeRun(runId, batch.length);
      tally.runs++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const failed =
    tally.escaped + tally.over_budget + tally.off_table + tally.fence_errors + tally.audit_mismatch;
  process.stdout.write(
    `${JSON.stringify({ ...tally, seed, seconds, stopped_early: stoppedEarly, ok: failed === 0 })}\n`,
  );
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((e: unknown) => {
  process.stderr.write(`fuzz: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 2;
});
