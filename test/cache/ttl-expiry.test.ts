import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { newRun } from "../helpers.ts";
import {
  backendQueries,
  doubleTool,
  freshTiers,
  logsCall,
  newService,
  proposeSettled,
  readThrough,
} from "./helpers.ts";

// Only Date is faked: the worker and the ledger share this isolate's clock, and timers
// (the tool's timeout) keep real time.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a cached result's TTL", () => {
  it("serves the entry until the tool's TTL passes, then misses", async () => {
    const service = newService();
    const run = newRun();
    expect((await proposeSettled(run, logsCall(service))).headers.get("X-Cache")).toBe("miss");
    vi.setSystemTime(Date.now() + 299_000);
    expect((await proposeSettled(run, logsCall(service))).headers.get("X-Cache")).toBe(
      "hit-memory",
    );
    vi.setSystemTime(Date.now() + 2_000);
    expect((await proposeSettled(run, logsCall(service))).headers.get("X-Cache")).toBe("miss");
    expect(await backendQueries(service)).toBe(2);
  });

  it("expires a TTL below KV's 60 s floor on time, in both tiers", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool(() => ({ logs: [] }), { cacheTtlSeconds: 5 });
    const args = { service: newService(), window: "5m" };
    expect((await readThrough(tiers, tool.contract, args, "acme")).cache).toBe("miss");
    vi.setSystemTime(Date.now() + 6_000);
    expect((await readThrough(tiers, tool.contract, args, "acme")).cache).toBe("miss");
    expect(tool.runs()).toBe(2);
  });
});
