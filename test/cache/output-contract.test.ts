import { describe, expect, it } from "vitest";
import { edgeUrl, kvKey, store } from "../../src/cache/tiers.ts";
import { doubleTool, freshTiers, newService, readThrough } from "./helpers.ts";

describe("results that break the output contract", () => {
  it("are never cached: the next identical call runs the tool again", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool(() => ({ logs: [42] }));
    const args = { service: newService(), window: "5m" };
    const first = await readThrough(tiers, tool.contract, args, "acme");
    expect(first.kind).toBe("lead");
    const second = await readThrough(tiers, tool.contract, args, "acme");
    expect(second.cache).toBe("miss");
    expect(tool.runs()).toBe(2);
    expect(await tiers.edge.match(edgeUrl(second.key ?? ""))).toBeUndefined();
    expect(await tiers.kv.get(kvKey(second.key ?? ""))).toBeNull();
  });

  it("are refused by the store itself, in both tiers", async () => {
    const tiers = await freshTiers();
    const { contract } = doubleTool(() => ({ logs: [] }));
    const key = `k-${crypto.randomUUID()}`;
    expect(await store(tiers, contract, key, { logs: "not a list" })).toBe(false);
    expect(await store(tiers, contract, key, { logs: [], extra: true })).toBe(false);
    expect(await tiers.edge.match(edgeUrl(key))).toBeUndefined();
    expect(await tiers.kv.get(kvKey(key))).toBeNull();
  });

  it("are never served from a tier, even if an older schema once stored them", async () => {
    const tiers = await freshTiers();
    const loose = doubleTool(() => ({ logs: [] }));
    const args = { service: newService(), window: "5m" };
    const stored = await readThrough(tiers, loose.contract, args, "acme");
    const entry = JSON.stringify({ result: { logs: [7] }, expires_at: Date.now() + 60_000 });
    await tiers.kv.put(kvKey(stored.key ?? ""), entry);
    await tiers.edge.delete(edgeUrl(stored.key ?? ""));
    expect((await readThrough(tiers, loose.contract, args, "acme")).cache).toBe("miss");
    expect(loose.runs()).toBe(2);
  });

  it("are never cached for a mutation, whatever its TTL says", async () => {
    const tiers = await freshTiers();
    const { contract } = doubleTool(() => ({ logs: [] }), { effect: "mutate" });
    const key = `k-${crypto.randomUUID()}`;
    expect(await store(tiers, contract, key, { logs: [] })).toBe(false);
    expect(await tiers.kv.get(kvKey(key))).toBeNull();
  });
});
