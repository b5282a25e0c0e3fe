import { describe, expect, it } from "vitest";
import { json, newRun, propose, runStatus, seedTicket } from "./helpers.ts";

/** `get_ticket`, the tool docs/contracts.md adds step by step: a contract and policy entry only. */
describe("get_ticket", () => {
  it("reads a ticket through the fence, free, then from the cache", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const first = await propose(run, { tool: "get_ticket", args: { ticket_id: ticket } });
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Cache")).toBe("miss");
    expect(await json(first)).toMatchObject({
      decision: "applied",
      result: { ticket: { ticket_id: ticket, status: "open", comments: [] } },
    });
    const again = await propose(run, { tool: "get_ticket", args: { ticket_id: ticket } });
    expect(again.headers.get("X-Cache")).toMatch(/^hit-/);
    expect(await json(again)).toMatchObject({ decision: "cached" });
    const status = await runStatus(run);
    expect(status.budget.paid_calls.used).toBe(0);
    expect(status.tool_calls).toEqual({ get_ticket: 1 });
  });

  it("escalates a ticket the service does not have, and blocks arguments outside the contract", async () => {
    const run = newRun();
    const missing = await propose(run, { tool: "get_ticket", args: { ticket_id: "T-none" } });
    expect(missing.status).toBe(502);
    expect(await json(missing)).toMatchObject({
      decision: "escalate",
      reason: "upstream_rejected",
    });
    const extra = await propose(run, { tool: "get_ticket", args: { ticket_id: "T-1", all: true } });
    expect(await json(extra)).toMatchObject({ reason: "contract_violation" });
  });
});
