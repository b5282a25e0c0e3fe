import { describe, expect, it } from "vitest";
import { callerWith, foldCalls, json, newRun, ticketCall } from "./helpers.ts";

interface AuditPage {
  entries: { seq: number; of: number | null; tool: string | null; decision: string }[];
}

describe("tenants never see each other's runs", () => {
  it("answers 404 to another tenant reading a run's status or audit", async () => {
    const owner = await callerWith({ role: "operator" });
    const other = await callerWith({ role: "operator" });
    const run = newRun();
    expect((await owner.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await other.get(`/v1/runs/${run}`)).status).toBe(404);
    const audit = await other.get(`/v1/runs/${run}/audit`);
    expect(audit.status).toBe(404);
    expect(await json(audit)).toMatchObject({ reason: "not_found" });
  });

  it("leaves a run open when another tenant halts the same run id", async () => {
    const owner = await callerWith({ role: "operator" });
    const other = await callerWith({ role: "operator" });
    const run = newRun();
    await owner.propose(run, { tool: "noop", args: {} });
    // The other tenant has no run of that id: its halt is 404, and creates nothing.
    expect((await other.post(`/v1/runs/${run}/halt`)).status).toBe(404);
    expect((await owner.runStatus(run)).status).toBe("open");
    expect((await owner.propose(run, { tool: "noop", args: {} })).status).toBe(200);
  });

  it("keeps another tenant's calls out of a run's budget, keys and audit", async () => {
    const owner = await callerWith({ role: "operator" });
    const other = await callerWith({ role: "operator" });
    const run = newRun();
    const mine = ticketCall(
      "create_ticket",
      { ticket_id: `T-${crypto.randomUUID()}` },
      "k-tenant-01",
    );
    const theirs = ticketCall(
      "create_ticket",
      { ticket_id: `T-${crypto.randomUUID()}` },
      "k-tenant-01",
    );
    expect((await owner.propose(run, mine)).status).toBe(200);
    // The same run id and key with another payload would be idempotency_key_reused in one run.
    const res = await other.propose(run, theirs);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ decision: "applied" });
    expect((await owner.runStatus(run)).budget.mutations.used).toBe(1);
    const page = await json<AuditPage>(await owner.get(`/v1/runs/${run}/audit`));
    expect(foldCalls(page.entries).map((e) => [e.tool, e.decision])).toEqual([
      ["create_ticket", "applied"],
    ]);
  });
});
