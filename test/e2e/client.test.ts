import { createClient, FenceProblem, intentKey } from "toolfence/client";
import { describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");

describe("toolfence/client against a live fence", () => {
  it("calls a tool, replays a retried mutation, and reads the run back", async () => {
    const ticketId = `T-${crypto.randomUUID().slice(0, 8)}`;
    // README: client
    const fence = createClient({ url, key: "tf_dev_local_key" });
    const run = fence.run(`incident-${crypto.randomUUID()}`);
    const key = intentKey("create", ticketId);
    const args = { ticket_id: ticketId, priority: "high" } as const;
    const first = await run.call("create_ticket", args, { key });
    const again = await run.call("create_ticket", args, { key }); // replayed: applied once
    const opened = first.decision === "applied" ? first.result.ticket : null;
    // README: end

    expect(opened).toMatchObject({ ticket_id: ticketId, priority: "high" });

    expect(first).toMatchObject({ decision: "applied", status: 200 });
    expect(again).toMatchObject({
      decision: "replayed",
      call_id: first.decision === "applied" ? first.call_id : "",
    });
    const status = await run.status();
    expect(status.budget.mutations.used).toBe(1);
    const page = await run.audit({ limit: 1 });
    expect(page.entries).toHaveLength(1);
    expect(page.next_after).toBe(page.entries[0]?.seq);
    const all = [];
    for await (const entry of run.auditEntries({ limit: 1 })) all.push(entry.decision);
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all).toContain("replayed");
  });

  it("halts a run, after which every call is blocked", async () => {
    const run = createClient({ url, key: "tf_dev_local_key" }).run(`halt-${crypto.randomUUID()}`);
    await run.limits({ max_mutations: 1 });
    expect((await run.halt("runaway")).status).toBe("halted");
    const answer = await run.call("noop", { note: "after halt" });
    expect(answer).toMatchObject({ decision: "block", reason: "run_halted", status: 403 });
  });

  it("throws a helper's refusal as a FenceProblem with the problem document", async () => {
    const run = createClient({ url, key: "tf_dev_local_key" }).run(`loose-${crypto.randomUUID()}`);
    const refused = run.limits({ max_mutations: 1000 });
    await expect(refused).rejects.toBeInstanceOf(FenceProblem);
    await expect(refused).rejects.toMatchObject({
      problem: { reason: "override_loosens_policy", field: "max_mutations" },
    });
  });
});
