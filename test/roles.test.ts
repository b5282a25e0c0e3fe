import { describe, expect, it } from "vitest";
import { callerWith, json, newRun } from "./helpers.ts";

const SCOPE_CHALLENGE = 'Bearer realm="toolfence", error="insufficient_scope"';

describe("roles", () => {
  it("lets an agent propose calls and read its run's status", async () => {
    const agent = await callerWith({ role: "agent" });
    const run = newRun();
    expect((await agent.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await agent.runStatus(run)).decisions).toEqual({ applied: 1 });
  });

  it("refuses an agent that tries to halt a run, and the run stays open", async () => {
    const agent = await callerWith({ role: "agent" });
    const run = newRun();
    await agent.propose(run, { tool: "noop", args: {} });
    const res = await agent.post(`/v1/runs/${run}/halt`);
    expect(res.status).toBe(403);
    expect(res.headers.get("WWW-Authenticate")).toBe(SCOPE_CHALLENGE);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "forbidden_role" });
    expect((await agent.runStatus(run)).status).toBe("open");
  });

  it("refuses an agent reading the audit or escalations of a run another key of its tenant started", async () => {
    const operator = await callerWith({ role: "operator" });
    const agent = await callerWith({ role: "agent", tenant: operator.tenant });
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    for (const route of ["audit", "escalations"]) {
      const res = await agent.get(`/v1/runs/${run}/${route}`);
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ reason: "forbidden_role" });
      expect((await operator.get(`/v1/runs/${run}/${route}`)).status).toBe(200);
    }
  });

  it("lets an operator of the tenant halt an agent's run", async () => {
    const agent = await callerWith({ role: "agent" });
    const operator = await callerWith({ role: "operator", tenant: agent.tenant });
    const run = newRun();
    await agent.propose(run, { tool: "noop", args: {} });
    expect((await operator.post(`/v1/runs/${run}/halt`)).status).toBe(200);
    const next = await agent.propose(run, { tool: "noop", args: {} });
    expect(await json(next)).toMatchObject({ reason: "run_halted" });
  });
});
