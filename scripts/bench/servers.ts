/**
 * The bench's `wrangler dev` servers: the fence, whose demo log backend answers at once, which
 * honours the development key and whose open-run caps no load reaches, and the bench-only floor worker; each with fresh state in
 * a folder under a root the caller picks (on disk, or tmpfs), and wrangler's local tracing on
 * (its default) or off.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { DEMO_CONFIG, type DevOptions, type DevServer, startDev } from "../lib/dev-server.ts";
import { authHeaders, DEFAULT_KEY } from "../lib/target.ts";

/** The floor worker's wrangler config. */
export const FLOOR_CONFIG = "scripts/bench/floor/wrangler.toml";

/**
 * `wrangler dev` records a trace of every invocation, by default, into a collector it runs in
 * the same workerd as the worker; `X_LOCAL_OBSERVABILITY=false` turns that off. A deployed
 * worker has no such collector beside it. Set either way, so the caller's own environment
 * cannot change what a row is labelled.
 */
function tracing(traced: boolean): Record<string, string> {
  return { X_LOCAL_OBSERVABILITY: traced ? "true" : "false" };
}

/** The vars of every bench fence: an instant demo log backend, the development key. */
export const FENCE_VARS = { DEMO_LOG_LATENCY_MS: "0-0", DEV_KEY: DEFAULT_KEY };

/**
 * Open runs a bench fence allows per key and per tenant. Its rows start a new run every 20
 * calls (every 3 for mutations: the demo policy's cap), thousands of runs under the one
 * development key, each open until its deadline; under the demo's caps (100 per key) a row
 * would soon measure `run_cap_exhausted` refusals instead of calls. The runs are still counted.
 */
export const BENCH_OPEN_RUNS = 1_000_000;

/** What a bench fence's demo policy differs in from the demo's: caps no load reaches. */
export const BENCH_POLICY = {
  max_open_runs_per_key: BENCH_OPEN_RUNS,
  max_open_runs_per_tenant: BENCH_OPEN_RUNS,
};

/**
 * A fresh fence, its state under `root`, checked to answer the log tool at once; built as its
 * config says unless `minify` is given.
 */
export async function startFence(
  root: string,
  traced = true,
  minify?: boolean,
): Promise<DevServer> {
  mkdirSync(root, { recursive: true });
  const built = minify === undefined ? {} : { minify };
  return startChecked({ stateRoot: root, env: tracing(traced), policy: BENCH_POLICY, ...built });
}

/** A fresh bench fence with `options`, stopped again if its log backend is not instant. */
export async function startChecked(options: DevOptions): Promise<DevServer> {
  const fence = await startDev(FENCE_VARS, options);
  try {
    await checkInstantLogs(fence.url, options.cwd);
  } catch (e) {
    fence.stop();
    throw e;
  }
  return fence;
}

/** Read misses the latency check sends, one after another. */
const LATENCY_PROBES = 5;

/**
 * Fail loudly unless the fence's demo log backend answers without its configured latency: the
 * fastest of a few read misses must take less than the least latency the demo's config sets
 * (each miss waits at least that long when the bench's `DEMO_LOG_LATENCY_MS` did not reach the
 * worker that serves the logs). A bound no call can beat with the latency on, so a slow host
 * cannot make it pass; only a host too slow to answer one call in that time can make it fail.
 */
export async function checkInstantLogs(url: string, cwd = "."): Promise<void> {
  const least = leastLogLatency(cwd);
  if (least === 0) return;
  const run = `latency-check-${Date.now().toString(36)}`;
  const times: number[] = [];
  for (let i = 0; i < LATENCY_PROBES; i++) {
    const start = performance.now();
    const response = await fetch(`${url}/v1/runs/${run}/calls`, {
      method: "POST",
      headers: { ...authHeaders(DEFAULT_KEY), "Content-Type": "application/json" },
      body: JSON.stringify({
        tool: "fetch_service_logs",
        args: { service: `${run}-${i}`, window: "5m" },
      }),
    });
    await response.arrayBuffer();
    times.push(performance.now() - start);
    if (response.status !== 200)
      throw new Error(`latency check: a log read got HTTP ${response.status}`);
  }
  const fastest = Math.min(...times);
  if (fastest >= least) {
    throw new Error(
      `the demo log backend kept its latency (fastest of ${LATENCY_PROBES} reads: ` +
        `${fastest.toFixed(0)} ms, at least ${least} ms configured): DEMO_LOG_LATENCY_MS did not reach it`,
    );
  }
}

/** The least latency the checkout's demo config gives the log backend, in ms (0: none found). */
function leastLogLatency(cwd: string): number {
  for (const config of [DEMO_CONFIG, "wrangler.toml"]) {
    let toml: string;
    try {
      toml = readFileSync(`${cwd}/${config}`, "utf8");
    } catch {
      continue;
    }
    const lows = [...toml.matchAll(/^DEMO_LOG_LATENCY_MS = "(\d+)-\d+"$/gm)].map((m) =>
      Number(m[1]),
    );
    if (lows.length > 0) return Math.min(...lows);
  }
  return 0;
}

/**
 * A fresh fence and floor worker, their state under `root` and wrangler's local tracing on or
 * off (`traced`), for `use`; both stopped after. `minify` builds both minified or not,
 * whatever their configs say.
 */
export async function withFenceAndFloor<T>(
  root: string,
  use: (fence: DevServer, floor: DevServer) => Promise<T>,
  traced = true,
  minify?: boolean,
): Promise<T> {
  const fence = await startFence(root, traced, minify);
  try {
    const built = minify === undefined ? {} : { minify };
    const options = { stateRoot: root, config: FLOOR_CONFIG, env: tracing(traced), ...built };
    const floor = await startDev({}, options);
    try {
      return await use(fence, floor);
    } finally {
      floor.stop();
    }
  } finally {
    fence.stop();
  }
}
