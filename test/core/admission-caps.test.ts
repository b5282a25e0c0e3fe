import { describe, expect, it } from "vitest";
import { type Admission, admit, type CallCaps, type RunState } from "../../src/core/admission.ts";

const run: RunState = {
  haltedAt: null,
  deadlineAt: 10_000,
  mutationsUsed: 0,
  paidUsed: 0,
  maxMutations: 3,
  maxPaidCalls: 20,
  allowedTools: ["create_ticket", "add_comment"],
};

const proposal = {
  tool: "create_ticket",
  effect: "mutate" as const,
  paid: true,
  key: "k-1",
  fingerprint: "f",
  now: 1,
};

const target = (used: number) => ({ used, max: 1, arg: "ticket_id", value: "T-1" });

function reasonOf(a: Admission): string {
  return a.kind === "refuse" ? a.refusal.reason : a.kind;
}

describe("admission with tool and target caps", () => {
  it("admits a call under every cap and counts it against them", () => {
    const caps: CallCaps = { tool: { used: 0, max: 2 }, target: target(0) };
    expect(admit(run, null, proposal, caps)).toEqual({
      kind: "admit",
      charge: { mutations: 1, paid: 1, calls: 1 },
    });
  });

  it("blocks a target at its cap before the tool cap and the budget", () => {
    const spent = { ...run, mutationsUsed: 3 };
    const caps: CallCaps = { tool: { used: 5, max: 5 }, target: target(1) };
    expect(reasonOf(admit(spent, null, proposal, caps))).toBe("target_cap_exhausted");
    expect(reasonOf(admit(spent, null, proposal, { ...caps, target: null }))).toBe(
      "tool_cap_exhausted",
    );
    expect(reasonOf(admit(spent, null, proposal, { tool: null, target: null }))).toBe(
      "budget_exhausted",
    );
  });

  it("lets a retry of a charged key through a spent cap, charging only its paid call", () => {
    const key = { fingerprint: "f", phase: "retryable" as const, leaseExpiresAt: 0, callId: "c" };
    const caps: CallCaps = { tool: { used: 1, max: 1 }, target: target(1) };
    const spent = { ...run, mutationsUsed: 3 };
    expect(admit(spent, key, proposal, caps)).toEqual({
      kind: "admit",
      charge: { mutations: 0, paid: 1, calls: 0 },
    });
    expect(admit(spent, key, { ...proposal, paid: false }, caps)).toEqual({
      kind: "admit",
      charge: { mutations: 0, paid: 0, calls: 0 },
    });
  });

  it("refuses a retry of a paid tool's key once the run's paid calls are spent", () => {
    const key = { fingerprint: "f", phase: "retryable" as const, leaseExpiresAt: 0, callId: "c" };
    const spent = { ...run, paidUsed: 20 };
    expect(reasonOf(admit(spent, key, proposal))).toBe("budget_exhausted");
    expect(reasonOf(admit(spent, key, { ...proposal, paid: false }))).toBe("admit");
  });

  it("refuses a tool the run's own limits leave out, even when a key was stored", () => {
    const key = { fingerprint: "f", phase: "done" as const, leaseExpiresAt: 0, callId: "c" };
    const narrow = { ...run, allowedTools: ["add_comment"] };
    expect(reasonOf(admit(narrow, key, proposal))).toBe("tool_not_allowed");
  });
});
