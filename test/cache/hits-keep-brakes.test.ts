import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { editRun, json, newRun, post, runLedger, runStatus } from "../helpers.ts";
import { logsCall, newService, proposeSettled } from "./helpers.ts";

describe("a cache hit and the run's brakes", () => {
  it("is blocked when the run is halted, although the result is cached", async () => {
    const service = newService();
    await proposeSettled(newRun(), logsCall(service));
    const run = newRun();
    await post(`/v1/runs/${run}/halt?pre_halt=true`);
    const res = await proposeSettled(run, logsCall(service));
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "run_halted" });
  });

  it("is blocked once the run's deadline passed", async () => {
    const service = newService();
    const run = newRun();
    await proposeSettled(run, logsCall(service));
    await editRun(runLedger(run), "deadline_at = ?", Date.now() - 1);
    const res = await proposeSettled(run, logsCall(service));
    expect(await json(res)).toMatchObject({ reason: "run_deadline_exceeded" });
  });

  it("is served free when the paid budget is spent, while a miss is refused", async () => {
    const service = newService();
    const run = newRun();
    await proposeSettled(run, logsCall(service));
    await editRun(runLedger(run), "paid_used = max_paid_calls");
    const hit = await proposeSettled(run, logsCall(service));
    expect(hit.status).toBe(200);
    expect(await json(hit)).toMatchObject({ decision: "cached" });
    const miss = await proposeSettled(run, logsCall(newService()));
    expect(await json(miss)).toMatchObject({ reason: "budget_exhausted" });
    expect((await runStatus(run)).budget.paid_calls.used).toBe(FENCE.policy.max_paid_calls);
  });
});
