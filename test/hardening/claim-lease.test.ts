import {
  createExecutionContext,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../demo/worker.ts";
import type { TargetClaim } from "../../src/ledger/protocol.ts";
import { claimObjectName } from "../../src/ledger/TargetClaims.ts";
import { callerWith, dev, devRequest, json, newRun, ticketCall } from "../helpers.ts";

function claimOf(tenant: string, runId: string, target: string): TargetClaim {
  return {
    tool: "create_ticket",
    arg: "ticket_id",
    target,
    max: 1,
    runId,
    intent: `k-${runId}`,
    callId: crypto.randomUUID(),
    tenant,
    leaseMs: 60_000,
  };
}

/** The object that holds the claims on `target` of `create_ticket` in `tenant`. */
function claimsOn(tenant: string, target: string) {
  return env.TARGET_CLAIMS.getByName(claimObjectName({ tenant, tool: "create_ticket", target }));
}

/** Let every unconfirmed claim's lease run out on `target`. */
async function claimLeasesRunOut(tenant: string, target: string) {
  const stub = claimsOn(tenant, target);
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE target_claim SET lease_expires_at = 1 WHERE confirmed = 0");
  });
  return stub;
}

/** The claims on `target` in its object: their run, and whether each is confirmed. */
async function claimRows(tenant: string, target: string) {
  return runInDurableObject(claimsOn(tenant, target), (_i, state) =>
    state.storage.sql
      .exec(
        "SELECT run_id, confirmed FROM target_claim WHERE target = ? ORDER BY claimed_at",
        target,
      )
      .toArray(),
  );
}

describe("tenant-wide target claims", () => {
  it("drops a claim past its lease whose run never admitted the call, when another run claims", async () => {
    const agent = await callerWith();
    const target = `T-${crypto.randomUUID()}`;
    const stub = claimsOn(agent.tenant, target);
    // A worker claims the target and dies before its run ever sees the call.
    const dead = newRun();
    expect(await stub.claim(claimOf(agent.tenant, dead, target))).toEqual({
      kind: "held",
      fresh: true,
    });
    // While its lease runs, the claim counts: the rule fails closed.
    const blocked = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-blocked"),
    );
    expect(await json(blocked)).toMatchObject({ reason: "target_cap_exhausted" });
    await claimLeasesRunOut(agent.tenant, target);
    const next = newRun();
    const freed = await agent.propose(
      next,
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-freed1"),
    );
    expect(await json(freed)).toMatchObject({ decision: "applied" });
    expect(await claimRows(agent.tenant, target)).toEqual([{ run_id: next, confirmed: 0 }]);
  });

  it("confirms, never drops, a claim past its lease whose run admitted the call", async () => {
    const agent = await callerWith();
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    const first = await agent.propose(
      run,
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-first1"),
    );
    expect(await json(first)).toMatchObject({ decision: "applied" });
    await claimLeasesRunOut(agent.tenant, target);
    const again = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-again1"),
    );
    expect(await json(again)).toMatchObject({ reason: "target_cap_exhausted" });
    expect(await claimRows(agent.tenant, target)).toEqual([{ run_id: run, confirmed: 1 }]);
  });

  it("asks nothing and sets no alarm for an admitted call's claim nobody contends", async () => {
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    const ctx = createExecutionContext();
    const request = devRequest(`/v1/runs/${run}/calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(ticketCall("create_ticket", { ticket_id: target }, "k-quiet-claim")),
    });
    const res = await worker.fetch(request, env, ctx);
    expect(await json(res)).toMatchObject({ decision: "applied" });
    await waitOnExecutionContext(ctx);
    // The development key acts for the tenant `default`.
    expect(await claimRows("default", target)).toEqual([{ run_id: run, confirmed: 0 }]);
    const alarm = await runInDurableObject(claimsOn("default", target), (_i, state) =>
      state.storage.getAlarm(),
    );
    expect(alarm).toBeNull();
  });

  it("gives one of two runs contending for a lapsed claim the target, and refuses the other", async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const target = `T-${crypto.randomUUID()}`;
    const stub = claimsOn(tenant, target);
    expect(await stub.claim(claimOf(tenant, newRun(), target))).toMatchObject({ kind: "held" });
    await claimLeasesRunOut(tenant, target);
    // Both find the lapsed claim and ask its run; whichever claims first after holds it.
    const answers = await Promise.all([
      stub.claim(claimOf(tenant, newRun(), target)),
      stub.claim(claimOf(tenant, newRun(), target)),
    ]);
    expect(answers.map((a) => a.kind).toSorted()).toEqual(["held", "refuse"]);
    expect(await claimRows(tenant, target)).toHaveLength(1);
  });

  it("gives the claim back, never confirms it, when its run refused the call", async () => {
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    expect((await dev.post(`/v1/runs/${run}/halt?reason=claims&pre_halt=true`)).status).toBe(200);
    const res = await dev.propose(
      run,
      ticketCall("create_ticket", { ticket_id: target }, "k-halted-claim"),
    );
    expect(await json(res)).toMatchObject({ reason: "run_halted" });
    expect(await claimRows("default", target)).toEqual([]);
  });
});
