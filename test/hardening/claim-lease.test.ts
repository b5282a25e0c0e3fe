import {
  createExecutionContext,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import type { TargetClaim } from "../../src/ledger/protocol.ts";
import { claimObjectName } from "../../src/ledger/TenantLedger.ts";
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
  return env.TENANT_LEDGER.getByName(claimObjectName({ tenant, tool: "create_ticket", target }));
}

/** Let every unconfirmed claim's lease run out on `target`, then ring its object's alarm. */
async function claimLeasesRunOut(tenant: string, target: string) {
  const stub = claimsOn(tenant, target);
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE target_claim SET lease_expires_at = 1 WHERE confirmed = 0");
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  return stub;
}

describe("tenant-wide target claims", () => {
  it("releases a claim whose worker died before its run decided", async () => {
    const agent = await callerWith();
    const target = `T-${crypto.randomUUID()}`;
    const stub = claimsOn(agent.tenant, target);
    // A worker claims the target and dies before its run ever sees the call.
    expect(await stub.claim(claimOf(agent.tenant, newRun(), target))).toEqual({
      kind: "held",
      fresh: true,
    });
    const blocked = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-blocked"),
    );
    expect(await json(blocked)).toMatchObject({ reason: "target_cap_exhausted" });
    await claimLeasesRunOut(agent.tenant, target);
    const freed = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-freed1"),
    );
    expect(await json(freed)).toMatchObject({ decision: "applied" });
  });

  it("confirms, never releases, a claim whose run admitted the call", async () => {
    const agent = await callerWith();
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    const first = await agent.propose(
      run,
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-first1"),
    );
    expect(await json(first)).toMatchObject({ decision: "applied" });
    const stub = await claimLeasesRunOut(agent.tenant, target);
    const rows = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql
        .exec("SELECT confirmed FROM target_claim WHERE target = ?", target)
        .toArray(),
    );
    expect(rows).toEqual([{ confirmed: 1 }]);
    const again = await agent.propose(
      newRun(),
      ticketCall("create_ticket", { ticket_id: target }, "k-lease-again1"),
    );
    expect(await json(again)).toMatchObject({ reason: "target_cap_exhausted" });
  });

  it("confirms the claim of an admitted call after the answer, before any lease runs out", async () => {
    const target = `T-${crypto.randomUUID()}`;
    const ctx = createExecutionContext();
    const request = devRequest(`/v1/runs/${newRun()}/calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(ticketCall("create_ticket", { ticket_id: target }, "k-eager-confirm")),
    });
    const res = await worker.fetch(request, env, ctx);
    expect(await json(res)).toMatchObject({ decision: "applied" });
    await waitOnExecutionContext(ctx);
    // The development key acts for the tenant `default`.
    const rows = await runInDurableObject(claimsOn("default", target), (_i, state) =>
      state.storage.sql
        .exec("SELECT confirmed, lease_expires_at > ? AS leased FROM target_claim", Date.now())
        .toArray(),
    );
    // Confirmed while its lease still runs: no alarm had to ask the run.
    expect(rows).toEqual([{ confirmed: 1, leased: 1 }]);
  });

  it("gives the claim back, never confirms it, when its run refused the call", async () => {
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    expect((await dev.post(`/v1/runs/${run}/halt?reason=claims`)).status).toBe(200);
    const res = await dev.propose(
      run,
      ticketCall("create_ticket", { ticket_id: target }, "k-halted-claim"),
    );
    expect(await json(res)).toMatchObject({ reason: "run_halted" });
    const rows = await runInDurableObject(claimsOn("default", target), (_i, state) =>
      state.storage.sql.exec("SELECT confirmed FROM target_claim").toArray(),
    );
    expect(rows).toEqual([]);
  });
});
