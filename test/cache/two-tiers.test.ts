import { describe, expect, it } from "vitest";
import { EDGE_ORIGIN, edgeUrl, kvKey } from "../../src/cache/tiers.ts";
import { json, newRun, runStatus } from "../helpers.ts";
import { backendQueries, logsCall, newService, proposeAtEdge } from "./helpers.ts";

// The memory tier is off here: these tests are about the tiers behind it.
describe("the edge and KV tiers", () => {
  it("answers from KV once the edge entry is gone, then refills the edge", async () => {
    const service = newService();
    const run = newRun();
    const miss = await proposeAtEdge(run, logsCall(service));
    const { cache_key: key } = await json<{ cache_key: string }>(miss);
    expect(await caches.default.match(edgeUrl(EDGE_ORIGIN, key))).toBeDefined();
    expect(await caches.default.delete(edgeUrl(EDGE_ORIGIN, key))).toBe(true);
    const fromKv = await proposeAtEdge(run, logsCall(service));
    expect(fromKv.headers.get("X-Cache")).toBe("hit-kv");
    expect(await caches.default.match(edgeUrl(EDGE_ORIGIN, key))).toBeDefined();
    const fromEdge = await proposeAtEdge(run, logsCall(service));
    expect(fromEdge.headers.get("X-Cache")).toBe("hit-edge");
    expect(await backendQueries(service)).toBe(1);
    expect((await runStatus(run)).budget.paid_calls.used).toBe(1);
  });

  it("writes the KV entry with the tool's TTL and the result's expiry", async () => {
    const service = newService();
    const before = Date.now();
    const res = await proposeAtEdge(newRun(), logsCall(service));
    const { cache_key: key, result } = await json<{ cache_key: string; result: unknown }>(res);
    const { env } = await import("cloudflare:workers");
    const entry = JSON.parse((await env.RESULTS.get(kvKey(key))) ?? "null") as {
      result: unknown;
      expires_at: number;
    };
    expect(entry.result).toEqual(result);
    // fetch_service_logs declares cacheTtlSeconds: 300.
    expect(entry.expires_at).toBeGreaterThanOrEqual(before + 300_000);
    expect(entry.expires_at).toBeLessThanOrEqual(Date.now() + 300_000);
  });

  it("goes to the tool when neither tier has the entry", async () => {
    const service = newService();
    const first = await proposeAtEdge(newRun(), logsCall(service));
    const { cache_key: key } = await json<{ cache_key: string }>(first);
    const { env } = await import("cloudflare:workers");
    await caches.default.delete(edgeUrl(EDGE_ORIGIN, key));
    await env.RESULTS.delete(kvKey(key));
    const again = await proposeAtEdge(newRun(), logsCall(service));
    expect(again.headers.get("X-Cache")).toBe("miss");
    expect(await backendQueries(service)).toBe(2);
  });
});
