import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditPage, callerWith, json, newRun } from "../helpers.ts";
import { decide, lapse, pendingOf, urgentTicket } from "./helpers.ts";

function ledger(run: string, tenant = "default") {
  return env.RUN_LEDGER.getByName(`${tenant}/${run}`);
}

/** The approval's status as the run stores it (a view reads a lapsed one as expired anyway). */
function storedStatus(run: string, id: string, tenant: string): Promise<unknown> {
  return runInDurableObject(
    ledger(run, tenant),
    (_i, state) =>
      state.storage.sql.exec("SELECT status FROM approval WHERE id = ?", id).one().status,
  );
}

describe("an approval's deadline", () => {
  it("is an event: the run's alarm expires it, audits the denial, and the agent is refused", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun();
    const call = urgentTicket(`k-deadline-${crypto.randomUUID()}`);
    const pending = await pendingOf(await agent.propose(run, call));
    const id = pending.approval_id;
    await lapse(run, id, agent.tenant);

    expect(await runDurableObjectAlarm(ledger(run, agent.tenant))).toBe(true);
    expect(await storedStatus(run, id, agent.tenant)).toBe("expired");
    const expiry = (await auditPage(run, agent)).entries.filter((e) => e.approval_id === id).at(-1);
    expect(expiry).toMatchObject({
      decision: "block",
      reason: "approval_expired",
      status: 403,
      tool: "create_ticket",
      call_id: pending.call_id,
    });

    // The agent's next proposal is told, once; the one after asks a person anew.
    const told = await agent.propose(run, call);
    expect(told.status).toBe(403);
    expect(await json(told)).toMatchObject({ reason: "approval_expired", approval_id: id });
    const again = await pendingOf(await agent.propose(run, call));
    expect(again.approval_id).not.toBe(id);
  });

  it("can never be approved once it passed: 403 approval_expired, before and after the alarm", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun();
    const call = urgentTicket("k-deadline-late");
    const pending = await pendingOf(await agent.propose(run, call));
    const id = pending.approval_id;
    await lapse(run, id, agent.tenant);
    const before = await decide(run, id, "approve", "too late", agent.key ?? "");
    expect(before.status).toBe(403);
    expect(await json(before)).toMatchObject({ decision: "block", reason: "approval_expired" });

    await runDurableObjectAlarm(ledger(run, agent.tenant));
    for (const decision of ["approve", "deny"] as const) {
      const after = await decide(run, id, decision, "too late", agent.key ?? "");
      expect(after.status).toBe(403);
      expect(after.headers.get("Content-Type")).toBe("application/problem+json");
      expect(await json(after)).toMatchObject({ reason: "approval_expired", approval_id: id });
    }
    expect(await storedStatus(run, id, agent.tenant)).toBe("expired");
    // Nothing of it ran: the agent's proposal is refused, not applied.
    const told = await agent.propose(run, call);
    expect(told.status).toBe(403);
    expect((await agent.runStatus(run)).budget.mutations.used).toBe(0);
  });

  it("sets the run's one alarm no later than the next pending deadline", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun();
    const pending = await pendingOf(await agent.propose(run, urgentTicket("k-deadline-wake")));
    const soon = Date.now() + 5_000;
    await runInDurableObject(ledger(run, agent.tenant), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE approval SET expires_at = ? WHERE id = ?",
        soon,
        pending.approval_id,
      );
    });
    // A ring with nothing due re-arms for the next work of any kind: this deadline.
    await runDurableObjectAlarm(ledger(run, agent.tenant));
    const alarm = await runInDurableObject(ledger(run, agent.tenant), (_i, state) =>
      state.storage.getAlarm(),
    );
    expect(alarm).not.toBeNull();
    expect(alarm ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(soon);
    expect(await storedStatus(run, pending.approval_id, agent.tenant)).toBe("pending");
  });
});
