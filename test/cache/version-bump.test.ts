import { describe, expect, it } from "vitest";
import { cacheKey } from "../../src/core/canonical.ts";
import { doubleTool, freshTiers, newService, readThrough } from "./helpers.ts";

describe("bumping a tool's version", () => {
  it("misses the entries of the old version and runs the tool again", async () => {
    const tiers = await freshTiers();
    const v1 = doubleTool(() => ({ logs: ["from v1"] }));
    const args = { service: newService(), window: "5m" };
    expect((await readThrough(tiers, v1.contract, args, "acme")).cache).toBe("miss");
    expect((await readThrough(tiers, v1.contract, args, "acme")).cache).toBe("hit-edge");
    const v2 = doubleTool(() => ({ logs: ["from v2"] }), { version: "v2" });
    const bumped = await readThrough(tiers, v2.contract, args, "acme");
    expect(bumped.cache).toBe("miss");
    expect(v2.runs()).toBe(1);
    expect(v1.runs()).toBe(1);
  });

  it("changes the cache key", async () => {
    const args = { service: "auth", window: "5m" };
    const v1 = await cacheKey({ tool: "fetch_service_logs", version: "v1", args, tenant: "acme" });
    const v2 = await cacheKey({ tool: "fetch_service_logs", version: "v2", args, tenant: "acme" });
    expect(v2).not.toBe(v1);
    expect(v1).toMatch(/^[0-9a-f]{64}$/);
  });
});
