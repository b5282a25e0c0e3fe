import { describe, expect, it } from "vitest";
import {
  callerWith,
  demoTicket,
  foldCalls,
  get,
  json,
  newRun,
  propose,
  runStatus,
} from "../helpers.ts";
import { decide, lapse, pendingOf, urgentTicket } from "./helpers.ts";

describe("a call a policy rule sends to a person", () => {
  it("is not run nor charged: 202 needs_approval with the approval, its expiry and the rule", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0001");
    const res = await propose(run, call);
    expect(res.headers.get("Retry-After")).toBe("30");
    const pending = await pendingOf(res);
    expect(pending).toMatchObject({
      decision: "needs_approval",
      reason: "approval_required",
      rule: "urgent_ticket",
    });
    expect(pending.approval_id).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(Date.parse(pending.expires_at)).toBeGreaterThan(Date.now());
    expect((await demoTicket(call.args.ticket_id)).status).toBe(404);
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(0);
    expect(status.budget.paid_calls.used).toBe(0);
  });

  it("asks again with the same approval while it waits, and a normal ticket needs nobody", async () => {
    const run = newRun();
    const first = await pendingOf(await propose(run, urgentTicket("k-urgent-0002", "T-wait-1")));
    const again = await pendingOf(await propose(run, urgentTicket("k-urgent-0002", "T-wait-1")));
    expect(again.approval_id).toBe(first.approval_id);
    const normal = await propose(run, {
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}`, priority: "normal" },
      idempotency_key: "k-normal-0001",
    });
    expect(normal.status).toBe(200);
  });

  it("runs once approved, on the re-proposed same call, charged once and audited in order", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0003");
    const pending = await pendingOf(await propose(run, call));
    const decided = await decide(run, pending.approval_id, "approve", "customer-facing outage");
    expect(decided.status).toBe(200);
    expect(await json(decided)).toMatchObject({ status: "approved", decided_by: "development" });
    const applied = await propose(run, call);
    expect(applied.status).toBe(200);
    expect(await json(applied)).toMatchObject({ decision: "applied" });
    expect((await demoTicket(call.args.ticket_id)).status).toBe(200);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
    const audit = await json<{
      entries: {
        seq: number;
        of: number | null;
        decision: string;
        approval_id: string | null;
        note: string | null;
      }[];
    }>(await get(`/v1/runs/${run}/audit`));
    expect(foldCalls(audit.entries).map((e) => [e.decision, e.approval_id])).toEqual([
      ["approval_requested", pending.approval_id],
      ["approved", pending.approval_id],
      ["applied", pending.approval_id],
    ]);
    expect(audit.entries[1]?.note).toBe("customer-facing outage");
  });

  it("is single use: the same key replays the applied call, and spends no second grant", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0004", `T-single-${crypto.randomUUID()}`);
    const pending = await pendingOf(await propose(run, call));
    await decide(run, pending.approval_id, "approve");
    expect((await propose(run, call)).status).toBe(200);
    const replay = await propose(run, call);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const approvals = await json<{ approvals: { status: string; consumed_by_call: string }[] }>(
      await get(`/v1/runs/${run}/approvals`),
    );
    expect(approvals.approvals.map((a) => a.status)).toEqual(["consumed"]);
  });

  it("applies exactly one of many concurrent re-proposals after one approval", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0006");
    const pending = await pendingOf(await propose(run, call));
    await decide(run, pending.approval_id, "approve");
    const answers = await Promise.all(Array.from({ length: 8 }, () => propose(run, call)));
    const bodies = await Promise.all(answers.map((r) => json<{ decision: string }>(r)));
    const replayed = answers.filter((r) => r.headers.get("Idempotent-Replayed") === "true");
    const applied = bodies.filter(
      (b, i) => b.decision === "applied" && answers[i]?.headers.get("Idempotent-Replayed") === null,
    );
    expect(applied).toHaveLength(1);
    // The others wait on the running call (409) or replay its answer; none runs again.
    expect(answers.every((r) => [200, 409].includes(r.status))).toBe(true);
    expect(replayed.length + applied.length + answers.filter((r) => r.status === 409).length).toBe(
      8,
    );
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
  });

  it("does not let a grant for arguments A admit arguments B", async () => {
    const run = newRun();
    const a = urgentTicket("k-urgent-0007", "T-args-a");
    const pending = await pendingOf(await propose(run, a));
    await decide(run, pending.approval_id, "approve");
    const b = {
      ...a,
      args: { ...a.args, title: "Something else" },
      idempotency_key: "k-urgent-0008",
    };
    const other = await pendingOf(await propose(run, b));
    expect(other.approval_id).not.toBe(pending.approval_id);
    expect((await demoTicket(a.args.ticket_id)).status).toBe(404);
    // A's grant is still there for A.
    expect((await propose(run, a)).status).toBe(200);
  });

  it("tells the agent an operator's denial with the note, and stays denied", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0009");
    const pending = await pendingOf(await propose(run, call));
    await decide(run, pending.approval_id, "deny", "use priority high; urgent pages on-call");
    for (let i = 0; i < 2; i++) {
      const res = await propose(run, call);
      expect(res.status).toBe(403);
      const body = await json<{ reason: string; detail: string; approval_id: string }>(res);
      expect(body).toMatchObject({ reason: "approval_denied", approval_id: pending.approval_id });
      expect(body.detail).toContain("use priority high; urgent pages on-call");
    }
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
  });

  it("answers approval_expired once an approval's time ran out, then asks anew", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0010");
    const pending = await pendingOf(await propose(run, call));
    await decide(run, pending.approval_id, "approve");
    await lapse(run, pending.approval_id);
    const expired = await propose(run, call);
    expect(expired.status).toBe(403);
    expect(await json(expired)).toMatchObject({ reason: "approval_expired" });
    const anew = await pendingOf(await propose(run, call));
    expect(anew.approval_id).not.toBe(pending.approval_id);
  });

  it("still applies the run's brakes after approval: a halted run refuses the approved call", async () => {
    const run = newRun();
    const call = urgentTicket("k-urgent-0011");
    const pending = await pendingOf(await propose(run, call));
    await decide(run, pending.approval_id, "approve");
    const { post } = await import("../helpers.ts");
    await post(`/v1/runs/${run}/halt`);
    const res = await propose(run, call);
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ reason: "run_halted" });
  });

  it("holds under a tenant key too: the agent's call waits, the tenant's operator approves", async () => {
    const agent = await callerWith({ role: "agent" });
    const operator = await callerWith({ role: "operator", tenant: agent.tenant });
    const run = newRun();
    const call = urgentTicket("k-urgent-0012");
    const pending = await pendingOf(await agent.propose(run, call));
    expect((await decide(run, pending.approval_id, "approve", "", operator.key ?? "")).status).toBe(
      200,
    );
    expect((await agent.propose(run, call)).status).toBe(200);
  });
});
