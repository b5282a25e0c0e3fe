import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import { buildApp } from "../../src/app.ts";
import { edgeUrl, kvKey, store } from "../../src/cache/tiers.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { json, newRun, proposeThrough } from "../helpers.ts";
import { reply, UpstreamDouble } from "../upstream-double.ts";
import { doubleTool, freshTiers, newService, readThrough } from "./helpers.ts";

/** A cacheable paid read whose upstream is the double. */
const inventory: ToolContract = {
  name: "inventory",
  version: "v1",
  description: "Stock of one item.",
  effect: "read",
  paid: true,
  input: v.strictObject({ sku: v.string() }),
  output: v.strictObject({ stock: v.number() }),
  timeoutMs: 1000,
  cacheTtlSeconds: 300,
  sharedCache: false,
  upstream: { kind: "service", binding: "UPSTREAM", method: "GET", path: "/stock" },
};

const loaded = loadFence({ ...policy, allowed_tools: ["inventory"], tools: {} }, [inventory]);
if (!loaded.ok) throw new Error(loaded.error.join("; "));
const app = buildApp(loaded.value);

function askStock(double: UpstreamDouble, sku: string): Promise<Response> {
  const call = { tool: "inventory", args: { sku } };
  return proposeThrough(app, { ...env, UPSTREAM: double } as Env, newRun(), call);
}

describe("results that break the output contract", () => {
  it("are answered as an escalation and never cached: the next call asks the upstream again", async () => {
    const double = new UpstreamDouble(reply(200, { stock: "plenty" }));
    const sku = crypto.randomUUID();
    const first = await askStock(double, sku);
    expect(first.status).toBe(502);
    expect(first.headers.get("X-Cache")).toBe("miss");
    expect(await json(first)).toMatchObject({ reason: "output_contract_violation" });
    const second = await askStock(double, sku);
    expect(second.headers.get("X-Cache")).toBe("miss");
    expect(double.received).toHaveLength(2);
  });

  it("are cached once the upstream answers within the contract", async () => {
    const double = new UpstreamDouble(reply(200, { stock: 3 }));
    const sku = crypto.randomUUID();
    expect((await askStock(double, sku)).headers.get("X-Cache")).toBe("miss");
    expect((await askStock(double, sku)).headers.get("X-Cache")).toBe("hit-memory");
    expect(double.received).toHaveLength(1);
  });

  it("are never cached: the next identical call runs the tool again", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool(() => ({ logs: [42] }));
    const args = { service: newService(), window: "5m" };
    const first = await readThrough(tiers, tool.contract, args, "acme");
    expect(first.kind).toBe("leader");
    const second = await readThrough(tiers, tool.contract, args, "acme");
    expect(second.cache).toBe("miss");
    expect(tool.runs()).toBe(2);
    expect(await tiers.edge.match(edgeUrl(tiers.origin, second.key ?? ""))).toBeUndefined();
    expect(await tiers.kv.get(kvKey(second.key ?? ""))).toBeNull();
  });

  it("are refused by the store itself, in both tiers", async () => {
    const tiers = await freshTiers();
    const { contract } = doubleTool(() => ({ logs: [] }));
    const key = `k-${crypto.randomUUID()}`;
    expect(await store(tiers, contract, key, { logs: "not a list" })).toBe(false);
    expect(await store(tiers, contract, key, { logs: [], extra: true })).toBe(false);
    expect(await tiers.edge.match(edgeUrl(tiers.origin, key))).toBeUndefined();
    expect(await tiers.kv.get(kvKey(key))).toBeNull();
  });

  it("are never served from a tier, even if an older schema once stored them", async () => {
    const tiers = await freshTiers();
    const loose = doubleTool(() => ({ logs: [] }));
    const args = { service: newService(), window: "5m" };
    const stored = await readThrough(tiers, loose.contract, args, "acme");
    const entry = JSON.stringify({ result: { logs: [7] }, expires_at: Date.now() + 60_000 });
    await tiers.kv.put(kvKey(stored.key ?? ""), entry);
    await tiers.edge.delete(edgeUrl(tiers.origin, stored.key ?? ""));
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
