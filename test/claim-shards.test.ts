import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLAIM_SHARDS, claimObjectName, claimShard } from "../src/ledger/TargetClaims.ts";
import { callerWith, json, newRun, ticketCall } from "./helpers.ts";

/** The claims an object holds, as (run, target) pairs. */
function claimsIn(name: string) {
  return runInDurableObject(env.TARGET_CLAIMS.getByName(name), (_i, state) =>
    state.storage.sql.exec("SELECT run_id, target FROM target_claim ORDER BY target").toArray(),
  );
}

/** Two fresh ticket ids, in the same shard or in different ones. */
function twoTargets(sameShard: boolean): [string, string] {
  const a = `T-a-${crypto.randomUUID()}`;
  for (;;) {
    const b = `T-b-${crypto.randomUUID()}`;
    if ((claimShard(a) === claimShard(b)) === sameShard) return [a, b];
  }
}

describe("tenant-wide target claims, sharded by target", () => {
  it("files each claim in its target's shard, none in an object of the whole tenant", async () => {
    const agent = await callerWith();
    const [a, b] = twoTargets(false);
    const run = newRun();
    for (const [target, key] of [
      [a, "k-shard-a0001"],
      [b, "k-shard-b0001"],
    ] as const) {
      const res = await agent.propose(run, ticketCall("create_ticket", { ticket_id: target }, key));
      expect(await json(res)).toMatchObject({ decision: "applied" });
    }
    const objectOf = (target: string) =>
      claimObjectName({ tenant: agent.tenant, tool: "create_ticket", target });
    expect(objectOf(a)).not.toBe(objectOf(b));
    expect(await claimsIn(objectOf(a))).toEqual([{ run_id: run, target: a }]);
    expect(await claimsIn(objectOf(b))).toEqual([{ run_id: run, target: b }]);
    expect(await claimsIn(agent.tenant)).toEqual([]);
  });

  it("keeps the caps of two targets in one shard apart", async () => {
    const agent = await callerWith();
    const [a, b] = twoTargets(true);
    const [runA, runB] = [newRun(), newRun()];
    const first = await agent.propose(
      runA,
      ticketCall("create_ticket", { ticket_id: a }, "k-same-a0001"),
    );
    expect(await json(first)).toMatchObject({ decision: "applied" });
    const second = await agent.propose(
      runB,
      ticketCall("create_ticket", { ticket_id: b }, "k-same-b0001"),
    );
    expect(await json(second)).toMatchObject({ decision: "applied" });
    const again = await agent.propose(
      runB,
      ticketCall("create_ticket", { ticket_id: a }, "k-same-a0002"),
    );
    expect(await json(again)).toMatchObject({ reason: "target_cap_exhausted" });
    const name = claimObjectName({ tenant: agent.tenant, tool: "create_ticket", target: a });
    expect(await claimsIn(name)).toEqual(
      [
        { run_id: runA, target: a },
        { run_id: runB, target: b },
      ].sort((x, y) => (x.target < y.target ? -1 : 1)),
    );
  });

  it("still refuses a second run on the same target: both meet the target's one object", async () => {
    const agent = await callerWith();
    const target = `T-${crypto.randomUUID()}`;
    const first = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-shard-first"),
    );
    expect(await json(first)).toMatchObject({ decision: "applied" });
    const second = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-shard-secnd"),
    );
    expect(await json(second)).toMatchObject({ reason: "target_cap_exhausted" });
  });

  it("spreads a tenant's targets over every shard, none far above its share", () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 6_400; i++) {
      const shard = claimShard(`INC-${i}`);
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual([...Array(CLAIM_SHARDS).keys()]);
    expect(Math.min(...counts.values())).toBeGreaterThan(50);
    expect(Math.max(...counts.values())).toBeLessThan(150);
  });

  it("keeps names apart whatever a tenant or tool holds", () => {
    const target = "INC-1";
    const shard = claimShard(target);
    const one = claimObjectName({ tenant: 'acme","x', tool: "create_ticket", target });
    const two = claimObjectName({ tenant: "acme", tool: 'x","create_ticket', target });
    expect(one).not.toBe(two);
    expect(JSON.parse(one)).toEqual(["claims/v2", 'acme","x', "create_ticket", shard]);
    expect(JSON.parse(two)).toEqual(["claims/v2", "acme", 'x","create_ticket', shard]);
  });
});
