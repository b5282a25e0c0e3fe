import { describe, expect, it } from "vitest";
import { MemoryTier } from "../../src/cache/memory.ts";
import { EDGE_ORIGIN, edgeUrl } from "../../src/cache/tiers.ts";
import { json, newRun } from "../helpers.ts";
import { backendQueries, logsCall, newService, proposeSettled } from "./helpers.ts";

describe("the in-isolate memory tier", () => {
  it("answers a repeated read without the Cache API, even once the edge entry is gone", async () => {
    const service = newService();
    const run = newRun();
    const miss = await proposeSettled(run, logsCall(service));
    const { cache_key: key } = await json<{ cache_key: string }>(miss);
    expect(await caches.default.delete(edgeUrl(EDGE_ORIGIN, key))).toBe(true);
    const hit = await proposeSettled(run, logsCall(service));
    expect(hit.headers.get("X-Cache")).toBe("hit-memory");
    expect(await backendQueries(service)).toBe(1);
  });

  it("keeps tenants apart: one tenant's entry is not another's", () => {
    const memory = new MemoryTier(1024);
    memory.put("acme", "k", { n: 1 }, Date.now() + 1000, '{"n":1}');
    expect(memory.get("acme", "k", Date.now())).toEqual({ result: { n: 1 } });
    expect(memory.get("globex", "k", Date.now())).toBeUndefined();
    expect(memory.scope("globex").get("k", Date.now())).toBeUndefined();
  });

  it("never serves an entry past its expiry, and frees its bytes", () => {
    const memory = new MemoryTier(1024);
    const now = Date.now();
    memory.put("acme", "k", 1, now + 100, "1");
    expect(memory.get("acme", "k", now + 99)).toEqual({ result: 1 });
    expect(memory.get("acme", "k", now + 100)).toBeUndefined();
    expect(memory.size()).toBe(0);
  });

  it("stays within its byte budget by dropping the least recently used entry", () => {
    const text = "x".repeat(100);
    // Each entry costs (100 + "acme\nk0".length) * 2 = 214 bytes: four fit in 900, five do not.
    const memory = new MemoryTier(900);
    const later = Date.now() + 60_000;
    for (const k of ["k0", "k1", "k2", "k3"]) memory.put("acme", k, text, later, text);
    expect(memory.get("acme", "k0", Date.now())).toBeDefined();
    memory.put("acme", "k4", text, later, text);
    expect(memory.size()).toBeLessThanOrEqual(900);
    expect(memory.get("acme", "k1", Date.now())).toBeUndefined();
    for (const k of ["k0", "k2", "k3", "k4"])
      expect(memory.get("acme", k, Date.now())).toBeDefined();
  });

  it("does not hold an entry larger than the whole budget", () => {
    const memory = new MemoryTier(64);
    const big = "y".repeat(64);
    memory.put("acme", "big", big, Date.now() + 1000, big);
    expect(memory.get("acme", "big", Date.now())).toBeUndefined();
    expect(memory.size()).toBe(0);
  });
});
