import { describe, expect, it } from "vitest";
import { type CachedRead, routeRead } from "../../src/cache/read-through.ts";
import { refuse } from "../../src/core/reasons.ts";
import { doubleTool, freshTiers, newService } from "./helpers.ts";

/**
 * Let a started call reach its flight: on the way it only hashes its key, which workerd
 * resolves without I/O, so one macrotask turn is enough.
 */
function parked(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function readOf(): Promise<CachedRead> {
  const { contract } = doubleTool(() => ({ logs: ["x"] }));
  return {
    tiers: await freshTiers(),
    contract,
    args: { service: newService(), window: "5m" },
    tenant: "acme",
    noCache: false,
    defer: () => {},
  };
}

describe("identical misses in flight in one isolate", () => {
  it("wait for the leader and get its result, as a free hit", async () => {
    const read = await readOf();
    const leader = await routeRead(read);
    const joiner = routeRead(read);
    await parked();
    if (leader.kind !== "leader") throw new Error("the first call leads");
    leader.leader.land({ ok: true, result: { logs: ["x"] } });
    expect(await joiner).toMatchObject({
      kind: "served",
      cache: "hit-memory",
      execution: { ok: true, result: { logs: ["x"] } },
    });
  });

  it("share the leader's failure without caching it", async () => {
    const read = await readOf();
    const leader = await routeRead(read);
    const joiner = routeRead(read);
    await parked();
    if (leader.kind !== "leader") throw new Error("the first call leads");
    const refusal = refuse("upstream_unavailable", "down");
    leader.leader.land({ ok: false, refusal });
    expect(await joiner).toMatchObject({ kind: "served", cache: "miss", execution: { refusal } });
    expect((await routeRead(read)).kind).toBe("leader");
  });

  it("lead themselves when the leader never ran (its own run refused it)", async () => {
    const read = await readOf();
    const leader = await routeRead(read);
    const joiner = routeRead(read);
    await parked();
    if (leader.kind !== "leader") throw new Error("the first call leads");
    leader.leader.land(null);
    expect(await joiner).toMatchObject({ kind: "leader", cache: "miss" });
  });

  it("are not joined by a no-cache call, which always runs the tool", async () => {
    const read = await readOf();
    const leader = await routeRead(read);
    const fresh = await routeRead({ ...read, noCache: true });
    expect(fresh).toMatchObject({ kind: "leader", cache: "bypass" });
    if (leader.kind === "leader") leader.leader.land(null);
  });
});
