import autocannon from "autocannon";
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";
import type { Table } from "./table.ts";

/** One load: what autocannon sends, and how to label it. */
interface Scenario {
  /** Row label. */
  name: string;
  /** The request, rewritten per request when `setup` is given. */
  request: autocannon.Request;
}

const JSON_HEADERS = { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" };
const NOOP = JSON.stringify({ tool: "noop", args: {} });
const REPEATED_READ = JSON.stringify({
  tool: "fetch_service_logs",
  args: { service: "checkout", window: "5m" },
});

/**
 * A request whose run (and body) change per request: a run may make 20 paid calls and
 * 3 mutations (contracts/policy.json), so a load rotates runs before it hits the brakes.
 */
function rotating(
  prefix: string,
  callsPerRun: number,
  body: (i: number) => string,
): autocannon.Request {
  let i = 0;
  return {
    method: "POST",
    headers: JSON_HEADERS,
    setupRequest: (req) => {
      const n = i++;
      return {
        ...req,
        path: `/v1/runs/${prefix}-${Math.floor(n / callsPerRun)}/calls`,
        body: body(n),
      };
    },
  };
}

function scenarios(prefix: string, cacheLabel: string): Scenario[] {
  const bare: Scenario = {
    name: "bare route GET /healthz",
    request: { method: "GET", path: "/healthz" },
  };
  return [
    bare,
    { name: cacheLabel, request: rotating(`${prefix}-hit`, 20, () => REPEATED_READ) },
    {
      name: "read miss (fetch_service_logs, new args each call)",
      request: rotating(`${prefix}-miss`, 20, (i) =>
        JSON.stringify({ tool: "fetch_service_logs", args: { service: `svc-${i}`, window: "5m" } }),
      ),
    },
    {
      name: "mutation (create_ticket, new key each call, 3 per run)",
      request: rotating(`${prefix}-mut`, 3, (i) =>
        JSON.stringify({
          tool: "create_ticket",
          args: { ticket_id: `B-${prefix}-${i}` },
          idempotency_key: `k-bench-${prefix}-${i}`,
        }),
      ),
    },
    {
      name: "refused call (malformed body, 400 by design: gate + 1 ledger write)",
      request: rotating(`${prefix}-bad`, 20, () => '{"tool":"noop","args":{}'),
    },
    {
      name: "noop call (gate + 1 ledger call, answered by the fence)",
      request: rotating(`${prefix}-noop`, 20, () => NOOP),
    },
  ];
}

/** What the repeated read is today: a cache hit once the cache serves it, else a miss. */
async function cacheLabel(url: string, prefix: string): Promise<string> {
  const send = () =>
    fetch(`${url}/v1/runs/${prefix}-probe/calls`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: REPEATED_READ,
    });
  await send();
  const second = await send();
  const xCache = second.headers.get("X-Cache") ?? "none";
  return xCache.startsWith("hit")
    ? `cache hit (repeated read, X-Cache: ${xCache})`
    : `repeated identical read (X-Cache: ${xCache}: no cache hit yet)`;
}

/** Figures of one scenario over all rounds. */
interface Figures {
  name: string;
  rps: number[];
  p50: number[];
  p99: number[];
  failed: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Every scenario under the same load, one after another, in `ROUNDS` rounds against one
 * `wrangler dev`, so a slow minute of a shared machine spreads over all rows alike.
 */
const ROUNDS = 2;

export async function benchHttp(url: string, quick: boolean): Promise<Table> {
  const prefix = `bench-${Date.now().toString(36)}`;
  const duration = quick ? 2 : 6;
  const connections = 10;
  const list = scenarios(prefix, await cacheLabel(url, prefix));
  const figures: Figures[] = list.map((s) => ({
    name: s.name,
    rps: [],
    p50: [],
    p99: [],
    failed: 0,
  }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of list.entries()) {
      const r = await autocannon({ url, connections, duration, requests: [s.request] });
      const f = figures[i];
      if (f === undefined) continue;
      f.rps.push(r.requests.average);
      f.p50.push(r.latency.p50);
      f.p99.push(r.latency.p99);
      f.failed += r.non2xx + r.errors + r.timeouts;
      process.stderr.write(`  ${s.name}: ${Math.round(r.requests.average)} req/s\n`);
    }
  }
  const bareRps = figures[0]?.rps ?? [];
  const bare = mean(bareRps);
  const targets: Record<number, number> = { 1: 0.8, 3: 0.5 };
  const rows = figures.map((f, i) => {
    const ratio = mean(f.rps) / bare;
    const target = targets[i];
    return [
      f.name,
      Math.round(mean(f.rps)).toString(),
      mean(f.p50).toFixed(0),
      Math.max(...f.p99).toFixed(0),
      String(f.failed),
      `${ratio.toFixed(2)}x`,
      target === undefined ? "" : `≥ ${target}x: ${ratio >= target ? "met" : "missed"}`,
    ];
  });
  const spread = bareRps.map((x) => Math.round(x)).join(" and ");
  return {
    title: "End to end through wrangler dev",
    note:
      `autocannon, ${connections} connections, loopback, ${ROUNDS} rounds of ${duration} s per row ` +
      `(req/s and p50: mean of the rounds; p99: the worse round; bare route: ${spread} req/s), one \`wrangler dev\` ` +
      "started by the bench with `--var DEMO_LOG_LATENCY_MS:0-0` so the demo log backend answers at " +
      "once and the fence, not the fake backend, is measured. Ratios are against the bare route. " +
      "Latency in ms (autocannon's resolution is 1 ms).",
    head: ["route", "req/s", "p50 ms", "p99 ms", "non-2xx", "vs bare", "target"],
    rows,
  };
}
