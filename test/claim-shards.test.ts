import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { claimObjectName } from "../src/ledger/TenantLedger.ts";
import { callerWith, json, newRun, ticketCall } from "./helpers.ts";

/** The claims an object holds, as (run, target) pairs. */
function claimsIn(name: string) {
  return runInDurableObject(env.TENANT_LEDGER.getByName(name), (_i, state) =>
    state.storage.sql.exec("SELECT run_id, target FROM target_claim ORDER BY target").toArray(),
  );
}

describe("tenant-wide target claims, one object per target", () => {
  it("files each target's claim in its own object, none in an object of the whole tenant", async () => {
    const agent = await callerWith();
    const [a, b] = [`T-a-${crypto.randomUUID()}`, `T-b-${crypto.randomUUID()}`];
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
    expect(await claimsIn(objectOf(a))).toEqual([{ run_id: run, target: a }]);
    expect(await claimsIn(objectOf(b))).toEqual([{ run_id: run, target: b }]);
    expect(await claimsIn(agent.tenant)).toEqual([]);
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

  it("keeps names apart whatever a target holds", () => {
    const one = claimObjectName({ tenant: "acme", tool: "create_ticket", target: 'x","y' });
    const two = claimObjectName({ tenant: "acme", tool: "create_ticket", target: "x" });
    expect(one).not.toBe(two);
    expect(JSON.parse(one)).toEqual(["claims/v1", "acme", "create_ticket", 'x","y']);
  });
});
