import { describe, expect, it } from "vitest";
import { auditPage, callerWith, newRun, propose, runStatus, ticketCall } from "./helpers.ts";

function createCall(i: number) {
  return ticketCall(
    "create_ticket",
    { ticket_id: `T-${crypto.randomUUID()}` },
    `k-flood-${100 + i}`,
  );
}

describe("a flood of calls for one run", () => {
  it("applies exactly the budget and records every call once", async () => {
    const run = newRun();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => propose(run, createCall(i))),
    );
    const codes = answers.map((r) => r.status);
    // contracts/policy.json: max_mutations = 3.
    expect(codes.filter((c) => c === 200)).toHaveLength(3);
    expect(codes.filter((c) => c === 403)).toHaveLength(27);
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(3);
    expect(status.decisions).toEqual({ applied: 3, block: 27 });
  });

  it("records every call that passed the rate limit, and none that did not", async () => {
    const operator = await callerWith({ role: "operator" });
    const run = newRun();
    const answers = await Promise.all(
      Array.from({ length: 41 }, () => operator.propose(run, { tool: "noop", args: {} })),
    );
    const limited = answers.filter((r) => r.status === 429).length;
    expect(limited).toBeGreaterThan(0);
    expect(answers.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    // Read with a second key of the tenant: the flooding key is itself limited by now.
    const auditor = await callerWith({ role: "operator", tenant: operator.tenant });
    const page = await auditPage(run, auditor);
    expect(page.entries.every((e) => e.decision === "applied")).toBe(true);
    expect(page.entries).toHaveLength(41 - limited);
  });
});
