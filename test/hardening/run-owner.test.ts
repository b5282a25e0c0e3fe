import { describe, expect, it } from "vitest";
import { callerWith, json, newRun } from "../helpers.ts";

describe("changing a run's limits", () => {
  it("is refused to another agent key of the tenant, allowed to the opener and to an operator", async () => {
    const opener = await callerWith();
    const other = await callerWith({ tenant: opener.tenant });
    const operator = await callerWith({ tenant: opener.tenant, role: "operator" });
    const run = newRun("owner");
    expect((await opener.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const starved = await other.put(`/v1/runs/${run}`, { allowed_tools: [] });
    expect(starved.status).toBe(403);
    expect(await json(starved)).toMatchObject({ decision: "block", reason: "forbidden_role" });
    expect((await opener.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await opener.put(`/v1/runs/${run}`, { max_paid_calls: 10 })).status).toBe(200);
    expect((await operator.put(`/v1/runs/${run}`, { max_paid_calls: 5 })).status).toBe(200);
    const status = await opener.runStatus(run);
    expect(status.limits.max_paid_calls).toBe(5);
  });

  it("lets the key that opened a run with PUT go on changing it", async () => {
    const opener = await callerWith();
    const run = newRun("owner");
    expect((await opener.put(`/v1/runs/${run}`, { max_mutations: 2 })).status).toBe(201);
    expect((await opener.put(`/v1/runs/${run}`, { max_mutations: 1 })).status).toBe(200);
  });
});
