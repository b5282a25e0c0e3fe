import { describe, expect, it } from "vitest";
import { auditPage, callerWith, json, newRun } from "../helpers.ts";
import { pendingOf, postJson, urgentTicket } from "./helpers.ts";

interface Approval {
  status: string;
  args: Record<string, unknown>;
  edited_args: Record<string, unknown> | null;
  fingerprint: string;
  edited_fingerprint: string | null;
}

describe("approve with an edit", () => {
  it("binds the grant to the edited args: the original is refused with them, the edit runs", async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const [agent, operator] = await Promise.all([
      callerWith({ tenant }),
      callerWith({ tenant, role: "operator" }),
    ]);
    const run = newRun();
    const call = urgentTicket("k-edit-0001");
    const id = (await pendingOf(await agent.propose(run, call))).approval_id;
    const edited = { ...call.args, priority: "high" };
    const decide = (body: unknown) =>
      postJson(`/v1/runs/${run}/approvals/${id}`, body, operator.key ?? "");
    // A bad edit is refused whole and changes nothing.
    const bad = await decide({ decision: "approve", args: { ...edited, priority: "whenever" } });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({
      reason: "malformed_payload",
      issues: [expect.objectContaining({ path: "priority" })],
    });
    const unknownKey = await decide({ decision: "approve", args: { ...edited, extra: 1 } });
    expect(unknownKey.status).toBe(400);
    const denyWithArgs = await decide({ decision: "deny", args: edited });
    expect(denyWithArgs.status).toBe(400);
    await pendingOf(await agent.propose(run, call));

    const ok = await decide({ decision: "approve", note: "not urgent", args: edited });
    expect(ok.status).toBe(200);
    const approval = await json<Approval>(ok);
    expect(approval).toMatchObject({ status: "approved", args: call.args, edited_args: edited });
    expect(approval.edited_fingerprint).not.toBe(approval.fingerprint);

    // The call as first proposed is refused, naming the edited args.
    const original = await agent.propose(run, call);
    expect(original.status).toBe(409);
    expect(await json(original)).toMatchObject({
      reason: "approval_edited",
      approval_id: id,
      edited_args: edited,
    });
    const applied = await agent.propose(run, { ...call, args: edited });
    expect(applied.status).toBe(200);
    expect(await json(applied)).toMatchObject({ result: { ticket: { priority: "high" } } });

    const { entries } = await auditPage(run, operator);
    const decision = entries.find((e) => e.decision === "approved");
    expect(decision?.fingerprint).toBe(approval.edited_fingerprint);
    expect(JSON.parse(decision?.payload ?? "{}")).toMatchObject({
      original_args: call.args,
      args: edited,
    });
    const used = entries.find((e) => e.decision === "applied");
    expect(used?.approval_id).toBe(id);
  });
});
