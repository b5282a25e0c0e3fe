import { env } from "cloudflare:workers";
import { fetchServiceLogs } from "../../demo/contracts/fetch_service_logs.ts";
import worker from "../../demo/worker.ts";
import { type CacheRoute, routeRead } from "../../src/cache/read-through.ts";
import { EDGE_ORIGIN, type ResultTiers } from "../../src/cache/tiers.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { execute } from "../../src/execute/execute.ts";
import { demoUpstreams, proposeThrough } from "../helpers.ts";

/** A service name no other test uses, so the demo backend's counter is this test's own. */
export function newService(): string {
  return `svc-${crypto.randomUUID()}`;
}

/** A `fetch_service_logs` call for `service`. */
export function logsCall(service: string, window = "5m") {
  return { tool: "fetch_service_logs", args: { service, window } };
}

/** The worker's bindings with the in-isolate memory tier off, to see the Cache API and KV. */
// Env types each var as its configured literal; "0" is the documented other value.
export const withoutMemory = { ...env, RESULT_MEMORY_BYTES: "0" } as unknown as Env;

/** POST a call to the worker with no memory tier in front of the edge, and wait for its writes. */
export function proposeAtEdge(runId: string, body: unknown): Promise<Response> {
  return proposeThrough(worker, withoutMemory, runId, body);
}

/** POST a call to the worker and wait for its cache writes. */
export function proposeSettled(
  runId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return proposeThrough(worker, env, runId, body, headers);
}

/** How many queries the demo log backend has answered for `service`. */
export async function backendQueries(service: string): Promise<number> {
  const res = await demoUpstreams().fetch(`https://demo.internal/logs/queries/${service}`);
  return ((await res.json()) as { queries: number }).queries;
}

/**
 * Empty tiers of the test's own: a fresh named cache and the shared KV namespace, with no
 * memory in front, so what the Cache API and KV do is seen.
 */
export async function freshTiers(): Promise<ResultTiers> {
  const edge = await caches.open(`test-${crypto.randomUUID()}`);
  return { memory: null, edge, origin: EDGE_ORIGIN, kv: env.RESULTS };
}

/** A logs tool whose upstream is a counted double answering `answer`. */
export function doubleTool(
  answer: (args: unknown) => unknown,
  patch: Partial<ToolContract> = {},
): { contract: ToolContract; runs: () => number } {
  let runs = 0;
  const upstream = {
    kind: "inline" as const,
    answer: (args: unknown) => {
      runs += 1;
      return answer(args);
    },
  };
  return { contract: { ...fetchServiceLogs, upstream, ...patch }, runs: () => runs };
}

/**
 * One read through the cache module as the call path drives it, without the ledger:
 * route, run the tool when leading, land, and wait for the writes. Returns how it went.
 */
export async function readThrough(
  tiers: ResultTiers,
  contract: ToolContract,
  args: unknown,
  tenant: string,
): Promise<CacheRoute> {
  const writes: Promise<unknown>[] = [];
  const route = await routeRead({
    tiers,
    contract,
    args,
    tenant,
    noCache: false,
    defer: (w) => writes.push(w),
  });
  if (route.kind === "leader") {
    const context = { env, tenant, runId: "cache-test", upstreamKey: null, timeoutMs: 1000 };
    route.leader.land(await execute(contract, args, context));
  }
  await Promise.all(writes);
  return route;
}
