import { describe, expect, it } from "vitest";
import { demoTicket, json, newRun, propose, runStatus, seedTicket, ticketCall } from "./helpers.ts";

// The three red tests of the tool-fence article, through HTTP against the real worker.
describe("the fence's red tests", () => {
  it("blocks a forged action before anything runs", async () => {
    const run = newRun();
    const ticket = `T-${crypto.randomUUID()}`;
    const res = await propose(
      run,
      ticketCall("delete_everything", { ticket_id: ticket }, "k-12345678"),
    );
    expect(res.status).toBe(422);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    const body = await json(res);
    expect(body).toMatchObject({ decision: "block", reason: "unknown_tool" });
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    expect((await demoTicket(ticket)).status).toBe(404);
  });

  it("does not mutate twice when a call is retried with the same key", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const call = ticketCall(
      "add_comment",
      { ticket_id: ticket, body: "ship after contract" },
      "k-retry-01",
    );
    const first = await propose(run, call);
    const second = await propose(run, call);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    const a = await json<{ decision: string; result: unknown; call_id: string }>(first);
    const b = await json<{ decision: string; result: unknown; call_id: string }>(second);
    expect(a.decision).toBe("applied");
    expect(b.decision).toBe("replayed");
    expect(b.result).toEqual(a.result);
    expect(b.call_id).toBe(a.call_id);
    const stored = await json<{ ticket: { comments: unknown[] } }>(await demoTicket(ticket));
    expect(stored.ticket.comments).toHaveLength(1);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
  });

  it("kills the loop when the mutation budget is spent", async () => {
    const run = newRun();
    const codes: number[] = [];
    const reasons: unknown[] = [];
    for (let i = 1; i <= 5; i++) {
      const res = await propose(
        run,
        ticketCall("create_ticket", { ticket_id: `T-${crypto.randomUUID()}` }, `k-aaaaaaa${i}`),
      );
      codes.push(res.status);
      reasons.push((await json(res)).reason);
    }
    // contracts/policy.json: max_mutations = 3.
    expect(codes).toEqual([200, 200, 200, 403, 403]);
    expect(reasons.slice(3)).toEqual(["budget_exhausted", "budget_exhausted"]);
    const status = await runStatus(run);
    expect(status.budget.mutations).toMatchObject({ used: 3, limit: 3 });
  });
});
