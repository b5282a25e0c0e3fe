import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { json } from "../helpers.ts";
import { getFrom, proposeTo, reply, UpstreamDouble } from "../upstream-double.ts";

const charge = {
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 1200 },
  idempotency_key: "k-paid-retry-01",
};

interface Budgeted {
  decision: string;
  reason?: string;
  budget: { mutations: { used: number }; paid_calls: { used: number; limit: number } };
}

describe("retrying one key against a paid tool", () => {
  it("charges every call that reaches the tool, and refuses the retries past max_paid_calls", async () => {
    const limit = FENCE.policy.max_paid_calls;
    const double = new UpstreamDouble(reply(500, { error: "boom" }));
    const run = `paid-retries-${crypto.randomUUID()}`;
    const answers: { status: number; body: Budgeted }[] = [];
    for (let i = 0; i < limit + 10; i++) {
      const res = await proposeTo(double, run, charge);
      answers.push({ status: res.status, body: await json<Budgeted>(res) });
    }
    // Each retry reached the tool until the paid budget was spent; none after it.
    expect(double.received).toHaveLength(limit);
    const reached = answers.slice(0, limit);
    expect(reached.map((a) => [a.status, a.body.reason])).toEqual(
      reached.map(() => [502, "upstream_unavailable"]),
    );
    expect(reached.map((a) => a.body.budget.paid_calls.used)).toEqual(reached.map((_, i) => i + 1));
    const refused = answers.slice(limit);
    expect(refused.map((a) => [a.status, a.body.reason])).toEqual(
      refused.map(() => [403, "budget_exhausted"]),
    );
    // One intent: its mutation is charged once, however many times it is retried.
    expect(answers.every((a) => a.body.budget.mutations.used === 1)).toBe(true);
    const status = await json<Budgeted>(await getFrom(`/v1/runs/${run}`));
    expect(status.budget).toMatchObject({ mutations: { used: 1 }, paid_calls: { used: limit } });
    const audit = await json<{
      entries: { decision: string; budget_after: { mutations: number; paid_calls: number } }[];
    }>(await getFrom(`/v1/runs/${run}/audit?limit=200`));
    const pending = audit.entries.filter((e) => e.decision === "pending");
    expect(pending.map((e) => e.budget_after.paid_calls)).toEqual(pending.map((_, i) => i + 1));
    expect(audit.entries.at(-1)?.budget_after).toEqual({ mutations: 1, paid_calls: limit });
  });
});
