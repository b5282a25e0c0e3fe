import { describe, expect, it } from "vitest";
import { type Caller, callerWith, get, json, newRun, propose } from "../helpers.ts";
import { decide, lapse, pendingOf, postJson, urgentTicket } from "./helpers.ts";

interface Listed {
  approvals: { approval_id: string; run_id: string; status: string; args?: unknown }[];
}

async function listed(caller: Caller, status: string): Promise<string[]> {
  const res = await caller.get(`/v1/approvals?status=${status}`);
  return (await json<Listed>(res)).approvals.map((a) => a.approval_id);
}

/** Poll `read` until it returns a non-empty list (work deferred past an answer), or give up. */
async function eventually(read: () => Promise<string[]>): Promise<string[]> {
  for (let i = 0; i < 50; i++) {
    const got = await read();
    if (got.length > 0) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
  return read();
}

describe("the operator's approval routes", () => {
  it("list pending approvals per run and per tenant, with the arguments to approve", async () => {
    const operator = await callerWith({ role: "operator" });
    const runs = [newRun(), newRun()];
    const ids: string[] = [];
    for (const [i, run] of runs.entries()) {
      const res = await operator.propose(run, urgentTicket(`k-list-000${i}`, `T-list-${i}`));
      ids.push((await pendingOf(res)).approval_id);
    }
    const perRun = await json<Listed>(
      await operator.get(`/v1/runs/${runs[0]}/approvals?status=pending`),
    );
    expect(perRun.approvals.map((a) => [a.approval_id, a.status])).toEqual([[ids[0], "pending"]]);
    expect(perRun.approvals[0]?.args).toEqual({
      ticket_id: "T-list-0",
      title: "Checkout is down",
      priority: "urgent",
    });
    const tenant = await json<Listed>(await operator.get("/v1/approvals?status=pending"));
    expect(tenant.approvals.map((a) => [a.approval_id, a.run_id])).toEqual([
      [ids[0], runs[0]],
      [ids[1], runs[1]],
    ]);
    // Another operator decides: the key that proposed a call may not approve it.
    const colleague = await callerWith({ role: "operator", tenant: operator.tenant });
    await decide(runs[0] ?? "", ids[0] ?? "", "approve", "", colleague.key ?? "");
    const left = await json<Listed>(await operator.get("/v1/approvals?status=pending"));
    expect(left.approvals.map((a) => a.approval_id)).toEqual([ids[1]]);
    const approved = await json<Listed>(await operator.get("/v1/approvals?status=approved"));
    expect(approved.approvals.map((a) => a.approval_id)).toEqual([ids[0]]);
    // The grant is spent by the call it admits; the index hears of it after the answer.
    const applied = await operator.propose(runs[0] ?? "", urgentTicket("k-list-0000", "T-list-0"));
    expect(applied.status).toBe(200);
    expect(await eventually(() => listed(operator, "consumed"))).toEqual([ids[0]]);
    expect(await listed(operator, "approved")).toEqual([]);
  });

  it("refuse an agent key, on every approval route", async () => {
    const agent = await callerWith({ role: "agent" });
    const run = newRun();
    const pending = await pendingOf(await agent.propose(run, urgentTicket("k-agent-0001")));
    for (const res of [
      await agent.get("/v1/approvals"),
      await agent.get(`/v1/runs/${run}/approvals`),
      await decide(run, pending.approval_id, "approve", "", agent.key ?? ""),
    ]) {
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ reason: "forbidden_role" });
    }
    expect((await agent.propose(run, urgentTicket("k-agent-0001"))).status).toBe(202);
  });

  it("refuse approving twice, another tenant's run, an expired approval and a bad body", async () => {
    const run = newRun();
    const pending = await pendingOf(await propose(run, urgentTicket("k-twice-0001")));
    expect((await decide(run, pending.approval_id, "approve")).status).toBe(200);
    const twice = await decide(run, pending.approval_id, "deny");
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ reason: "approval_already_decided" });

    // An approval is decided only under its own run: another run of the tenant has no such id.
    const elsewhere = newRun();
    await propose(elsewhere, { tool: "noop", args: {} });
    expect((await decide(elsewhere, pending.approval_id, "deny")).status).toBe(404);

    const stranger = await callerWith({ role: "operator" });
    const foreign = await decide(run, pending.approval_id, "approve", "", stranger.key ?? "");
    expect(foreign.status).toBe(404);

    const late = await pendingOf(await propose(run, urgentTicket("k-late-0001")));
    await lapse(run, late.approval_id);
    // The tenant's list reads an approval past its time as expired, not pending.
    const ids = async (status: string) =>
      (await json<Listed>(await get(`/v1/approvals?status=${status}&limit=1000`))).approvals.map(
        (a) => a.approval_id,
      );
    expect(await ids("expired")).toContain(late.approval_id);
    expect(await ids("pending")).not.toContain(late.approval_id);
    const expired = await decide(run, late.approval_id, "approve");
    expect(expired.status).toBe(403);
    expect(await json(expired)).toMatchObject({ reason: "approval_expired" });

    const bad = await postJson(`/v1/runs/${run}/approvals/${late.approval_id}`, {
      decision: "yes",
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ reason: "malformed_payload" });
    expect((await get(`/v1/runs/${run}/approvals?status=nope`)).status).toBe(400);
  });
});
