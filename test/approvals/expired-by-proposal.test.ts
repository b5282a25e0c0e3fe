/**
 * A pending approval whose deadline passed is decided `expired` once, in telemetry: by the run's
 * alarm when it rings first (src/telemetry/alarm.ts), else by the proposal that finds it lapsed.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as telemetry from "../../src/telemetry/index.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { lapse, pendingOf, urgentTicket } from "./helpers.ts";

vi.mock("../../src/telemetry/index.ts", { spy: true });

/** The `expired` outcomes recorded at the edge, with how long each waited (ms). */
function expiredRecorded(): number[] {
  return vi
    .mocked(telemetry.recordApprovalDecided)
    .mock.calls.filter(([, outcome]) => outcome === "expired")
    .map(([, , waitedMs]) => waitedMs);
}

beforeEach(() => {
  vi.mocked(telemetry.recordApprovalDecided).mockClear();
});

describe("an approval a proposal finds past its deadline, before the alarm rang", () => {
  it("is recorded as decided, expired, once, with how long it waited", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun("lapsed");
    const call = urgentTicket(`k-lapsed-${crypto.randomUUID()}`);
    const asked = Date.now();
    const pending = await pendingOf(await agent.propose(run, call));
    await lapse(run, pending.approval_id, agent.tenant);

    const told = await agent.propose(run, call);
    expect(told.status).toBe(403);
    expect(await json(told)).toMatchObject({
      reason: "approval_expired",
      approval_id: pending.approval_id,
    });
    const recorded = expiredRecorded();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toBeGreaterThanOrEqual(0);
    // From the approval's request to this proposal: within the test's own time.
    expect(recorded[0]).toBeLessThanOrEqual(Date.now() - asked);

    // Proposing once more asks a person anew; nothing more is decided.
    const again = await pendingOf(await agent.propose(run, call));
    expect(again.approval_id).not.toBe(pending.approval_id);
    expect(expiredRecorded()).toHaveLength(1);
  });
});

describe("an approval the run's alarm expired", () => {
  it("is not recorded again when the next proposal is told", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun("rung");
    const call = urgentTicket(`k-rung-${crypto.randomUUID()}`);
    const pending = await pendingOf(await agent.propose(run, call));
    await lapse(run, pending.approval_id, agent.tenant);
    const ledger = env.RUN_LEDGER.getByName(`${agent.tenant}/${run}`);
    expect(await runDurableObjectAlarm(ledger)).toBe(true);

    const told = await agent.propose(run, call);
    expect(told.status).toBe(403);
    expect(await json(told)).toMatchObject({ reason: "approval_expired" });
    expect(expiredRecorded()).toEqual([]);
  });
});
