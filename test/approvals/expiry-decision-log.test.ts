import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callerWith, newRun } from "../helpers.ts";
import { lapse, pendingOf, urgentTicket } from "./helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an approval the run's alarm expires", () => {
  it("writes the decision log line a refused call would, by the fence", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun("expiry-log");
    const pending = await pendingOf(
      await agent.propose(run, urgentTicket(`k-expiry-log-${crypto.randomUUID()}`)),
    );
    await lapse(run, pending.approval_id, agent.tenant);

    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await runDurableObjectAlarm(env.RUN_LEDGER.getByName(`${agent.tenant}/${run}`))).toBe(
      true,
    );
    const lines = log.mock.calls
      .map(([first]) => (typeof first === "string" ? first : ""))
      .filter((text) => text.includes('"event":"toolfence.decision"'))
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        event: "toolfence.decision",
        at: expect.any(String),
        decision: "block",
        reason: "approval_expired",
        status: 403,
        call_id: pending.call_id,
        cache: null,
        replayed: false,
        approval_id: pending.approval_id,
        mutations_left: null,
        paid_calls_left: null,
        tool: "create_ticket",
        form: null,
        tenant: agent.tenant,
        run_id: run,
        principal: "fence",
        duration_ms: 0,
        trace_id: null,
      },
    ]);
  });
});
