import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import * as telemetry from "../../src/telemetry/index.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { pendingOf, urgentTicket } from "./helpers.ts";

vi.mock("../../src/telemetry/index.ts", { spy: true });

interface ApprovalList {
  approvals: { approval_id: string; status: string }[];
}

describe("caps on approvals that wait for a person", () => {
  it("refuses a run's next approval once it has the policy's pending ones", async () => {
    const agent = await callerWith();
    const run = newRun();
    const max = FENCE.policy.max_pending_approvals_per_run;
    for (let i = 0; i < max; i++) {
      await pendingOf(await agent.propose(run, urgentTicket(`k-cap-run-${i}`)));
    }
    const over = await agent.propose(run, urgentTicket("k-cap-run-over"));
    expect(over.status).toBe(429);
    expect(over.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await json(over)).toMatchObject({ decision: "retry", reason: "approval_cap_exhausted" });
    const status = await agent.runStatus(run);
    expect(status.decisions).toMatchObject({ approval_requested: max, retry: 1 });
    expect(status.budget.mutations.used).toBe(0);
  });

  it("refuses a tenant's next approval once it has the policy's pending ones, and takes it back", async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const perRun = FENCE.policy.max_pending_approvals_per_run;
    const max = FENCE.policy.max_pending_approvals_per_tenant;
    const operator = await callerWith({ tenant, role: "operator" });
    // Each key stays under the per-key rate limit.
    const agents = await Promise.all(Array.from({ length: 4 }, () => callerWith({ tenant })));
    for (let i = 0; i < max; i++) {
      const agent = agents[Math.floor(i / 15)] ?? operator;
      const run = `cap-${Math.floor(i / perRun)}`;
      await pendingOf(await agent.propose(run, urgentTicket(`k-cap-tenant-${i}`)));
    }
    const run = newRun();
    vi.mocked(telemetry.recordApprovalRequested).mockClear();
    const over = await operator.propose(run, urgentTicket("k-cap-tenant-over"));
    expect(over.status).toBe(429);
    expect(await json(over)).toMatchObject({ reason: "approval_cap_exhausted" });
    // Taken back before anyone was asked: not counted as requested, so never left waiting.
    const requested = vi.mocked(telemetry.recordApprovalRequested).mock.calls;
    expect(requested.map(([, tool]) => tool)).toEqual([]);
    // The run took it back: nothing of it waits, in the run or in the tenant's list.
    const own = await json<ApprovalList>(await operator.get(`/v1/runs/${run}/approvals`));
    expect(own.approvals.map((a) => a.status)).toEqual(["expired"]);
    const all = await json<ApprovalList>(await operator.get("/v1/approvals?status=pending"));
    expect(all.approvals).toHaveLength(max);
  }, 60_000);

  it("pages the webhook at most the policy's pages a minute", async () => {
    const tenant = env.TENANT_INDEX.getByName(`t-${crypto.randomUUID()}`);
    const caps = { pending: 10, pagesPerMinute: 2 };
    const now = Date.now();
    const entry = () => ({
      approval_id: crypto.randomUUID(),
      run_id: "r",
      tool: "create_ticket",
      rule: "urgent_ticket",
      status: "pending" as const,
      requested_at: new Date(now).toISOString(),
      expires_at: new Date(now + 60_000).toISOString(),
    });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await tenant.admitApproval(entry(), caps));
    expect(answers.map((a) => a.ok && a.page)).toEqual([true, true, false, false]);
    // Each is listed all the same: the console and the list show what the pages left out.
    expect(await tenant.approvals("pending", 10)).toHaveLength(4);
  });
});
