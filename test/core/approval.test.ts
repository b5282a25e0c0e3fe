import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  type ApprovalRule,
  ApprovalRuleSchema,
  type ApprovalState,
  askingRule,
  grantFor,
} from "../../src/core/approval.ts";

const rules: ApprovalRule[] = [
  { name: "urgent", arg: "priority", in: ["urgent"] },
  { name: "big_refund", arg: "amount", above: 100 },
  { name: "prod", arg: "service", matches: "^prod-" },
  { name: "busy_run", after_paid_calls: 5 },
];

describe("approval rules on validated arguments", () => {
  it.each([
    [{ priority: "urgent" }, 0, "urgent"],
    [{ priority: "high" }, 0, null],
    [{ amount: 100.01 }, 0, "big_refund"],
    [{ amount: 100 }, 0, null],
    [{ amount: "1000" }, 0, null],
    [{ service: "prod-db" }, 0, "prod"],
    [{ service: "staging-prod-db" }, 0, null],
    [{}, 4, null],
    [{}, 5, "busy_run"],
  ])("%j with %i paid calls made asks %s", (args, paid, expected) => {
    expect(askingRule(rules, args, paid)?.name ?? null).toBe(expected);
  });

  it("always asks with an `always` rule, and never without rules", () => {
    expect(askingRule([{ name: "all", always: true }], {}, 0)?.name).toBe("all");
    expect(askingRule([], { priority: "urgent" }, 99)).toBeNull();
  });

  it("refuses a rule with two conditions or none", () => {
    const two = { name: "x", arg: "a", in: ["b"], above: 1 };
    expect(v.safeParse(ApprovalRuleSchema, two).success).toBe(false);
    expect(v.safeParse(ApprovalRuleSchema, { name: "x" }).success).toBe(false);
  });
});

describe("a grant for a call", () => {
  const base: ApprovalState = {
    id: "apr_1",
    status: "approved",
    requestedAt: 0,
    expiresAt: 2_000,
    policyVersion: "v1",
    note: null,
  };

  it.each([
    ["no approval yet", null, "v1", 1_000, "ask"],
    ["an approved grant", base, "v1", 1_000, "consume"],
    ["a spent grant", { ...base, status: "consumed" as const }, "v1", 1_000, "ask"],
    ["a pending approval", { ...base, status: "pending" as const }, "v1", 1_000, "wait"],
    ["a grant under another policy", base, "v2", 1_000, "ask"],
    ["a grant past its expiry", base, "v1", 2_000, "refuse"],
    ["a denial", { ...base, status: "denied" as const, note: "no" }, "v1", 1_000, "refuse"],
    ["an expiry already reported", { ...base, status: "expired" as const }, "v1", 3_000, "ask"],
  ])("%s: %s", (_label, state, version, now, kind) => {
    expect(grantFor(state, version, now).kind).toBe(kind);
  });

  it("names the denial's note and marks an expiry to report once", () => {
    const denied = grantFor({ ...base, status: "denied", note: "too risky" }, "v1", 0);
    expect(denied.kind === "refuse" && [denied.refusal.reason, denied.refusal.detail]).toEqual([
      "approval_denied",
      "An operator denied this call: too risky",
    ]);
    const expired = grantFor(base, "v1", 5_000);
    expect(expired.kind === "refuse" && [expired.refusal.reason, expired.expire]).toEqual([
      "approval_expired",
      true,
    ]);
  });
});
