import { describe, expect, it } from "vitest";
import { cacheKey } from "../../src/core/canonical.ts";
import { doubleTool, freshTiers, newService, readThrough } from "./helpers.ts";

describe("tenants and the result cache", () => {
  it("never serves one tenant's cached result to another", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool((args) => ({ logs: [`for ${JSON.stringify(args)}`] }));
    const args = { service: newService(), window: "5m" };
    expect((await readThrough(tiers, tool.contract, args, "acme")).cache).toBe("miss");
    const other = await readThrough(tiers, tool.contract, args, "globex");
    expect(other.cache).toBe("miss");
    expect(other.key).not.toBe((await readThrough(tiers, tool.contract, args, "acme")).key);
    expect(tool.runs()).toBe(2);
  });

  it("shares results across tenants only when the contract declares them shared", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool(() => ({ logs: ["public status page"] }), { sharedCache: true });
    const args = { service: newService(), window: "5m" };
    expect((await readThrough(tiers, tool.contract, args, "acme")).cache).toBe("miss");
    expect((await readThrough(tiers, tool.contract, args, "globex")).cache).toBe("hit-edge");
    expect(tool.runs()).toBe(1);
  });

  it("puts the tenant in the key, and leaves it out of a shared key", async () => {
    const base = { tool: "fetch_service_logs", version: "v1", args: { service: "auth" } };
    const acme = await cacheKey({ ...base, tenant: "acme" });
    const globex = await cacheKey({ ...base, tenant: "globex" });
    const shared = await cacheKey({ ...base, tenant: null });
    expect(new Set([acme, globex, shared]).size).toBe(3);
  });
});
