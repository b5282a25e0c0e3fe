import { describe, expect, it } from "vitest";
import { asksNoCache } from "../../src/cache/read-through.ts";
import { foldCalls, get, json, newRun, runStatus } from "../helpers.ts";
import { backendQueries, logsCall, newService, proposeSettled } from "./helpers.ts";

const NO_CACHE = { "Cache-Control": "no-cache" };

describe("bypassing the result cache", () => {
  it("runs a no-cache call, charges it, audits it as bypass and refreshes the cache", async () => {
    const service = newService();
    const run = newRun();
    await proposeSettled(run, logsCall(service));
    const fresh = await proposeSettled(run, logsCall(service), NO_CACHE);
    expect(fresh.headers.get("X-Cache")).toBe("bypass");
    expect(await json(fresh)).toMatchObject({ decision: "applied", cache_key: expect.any(String) });
    expect(await backendQueries(service)).toBe(2);
    const after = await proposeSettled(run, logsCall(service));
    expect(after.headers.get("X-Cache")).toBe("hit-memory");
    expect(await backendQueries(service)).toBe(2);
    expect((await runStatus(run)).budget.paid_calls.used).toBe(2);
    const page = await json<{ entries: { seq: number; of: number | null; cache: string }[] }>(
      await get(`/v1/runs/${run}/audit`),
    );
    expect(foldCalls(page.entries).map((e) => e.cache)).toEqual(["miss", "bypass", "hit-memory"]);
  });

  it("fills the cache from a no-cache call when it was empty", async () => {
    const service = newService();
    await proposeSettled(newRun(), logsCall(service), NO_CACHE);
    const next = await proposeSettled(newRun(), logsCall(service));
    expect(next.headers.get("X-Cache")).toBe("hit-memory");
    expect(await backendQueries(service)).toBe(1);
  });

  it("never caches a tool with a TTL of 0, and gives it no cache key", async () => {
    const run = newRun();
    for (let i = 0; i < 2; i++) {
      const res = await proposeSettled(run, { tool: "noop", args: { note: "same" } });
      expect(res.headers.get("X-Cache")).toBe("bypass");
      expect(res.headers.get("X-Cache-Key")).toBeNull();
      expect(await json(res)).not.toHaveProperty("cache_key");
    }
    expect((await runStatus(run)).decisions).toEqual({ applied: 2 });
  });

  it("reads no-cache among other Cache-Control directives, case-insensitively", () => {
    expect(asksNoCache("no-cache")).toBe(true);
    expect(asksNoCache("max-age=0, No-Cache")).toBe(true);
    expect(asksNoCache('no-cache="x-foo"')).toBe(true);
    expect(asksNoCache("no-store")).toBe(false);
    expect(asksNoCache("max-age=60")).toBe(false);
    expect(asksNoCache(undefined)).toBe(false);
    expect(asksNoCache(`${"x".repeat(300)}, no-cache`)).toBe(false);
  });
});
