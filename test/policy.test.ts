import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../demo/contracts/index.ts";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { limitsFor } from "../src/core/policy.ts";
import { checkPolicyText, policyReport } from "../src/core/policy-report.ts";
import { startFence } from "../src/fence.ts";

describe("the policy file", () => {
  it("starts with the shipped policy", () => {
    const fence = startFence(CONTRACTS, policy);
    expect(fence.policy.max_mutations).toBe(3);
    expect([...fence.tools.keys()].sort()).toEqual(CONTRACTS.map((c) => c.name).sort());
    expect(fence.tools.get("get_ticket")?.effect).toBe("read");
  });

  it("refuses to start without a policy", () => {
    expect(() => startFence(CONTRACTS, undefined)).toThrow(/refuses to start/);
  });

  it("names the offending path of an invalid policy", () => {
    expect(() => startFence(CONTRACTS, { ...policy, max_mutations: -1 })).toThrow(
      /policy\.max_mutations/,
    );
    expect(() => startFence(CONTRACTS, { ...policy, max_mutations: "3" })).toThrow(
      /policy\.max_mutations/,
    );
    expect(() => startFence(CONTRACTS, { ...policy, surprise: 1 })).toThrow(/policy\.surprise/);
    const { run_deadline_ms: _, ...missing } = policy;
    expect(() => startFence(CONTRACTS, missing)).toThrow(/policy\.run_deadline_ms/);
  });

  it("refuses a policy that allows a tool no contract defines", () => {
    const bad = { ...policy, allowed_tools: ["noop", "drop_table"] };
    expect(() => startFence(CONTRACTS, bad)).toThrow(
      /policy\.allowed_tools\.1: no contract named "drop_table"/,
    );
  });

  it("refuses a per-target rule on a sensitive argument, whose claim would hold it in clear", () => {
    const perEmail = { arg: "reporter_email", max: 1, scope: "tenant" };
    const bad = { ...policy, tools: { ...policy.tools, create_ticket: { per_target: perEmail } } };
    expect(() => startFence(CONTRACTS, bad)).toThrow(
      /policy\.tools\.create_ticket\.per_target\.arg: "reporter_email" is marked sensitive/,
    );
  });

  it("refuses a contract whose own answer bound is not a whole number of bytes", () => {
    const bad = CONTRACTS.map((c) => (c.name === "get_ticket" ? { ...c, maxAnswerBytes: 0 } : c));
    expect(() => startFence(bad, policy)).toThrow(
      /contracts\.get_ticket\.maxAnswerBytes: a whole number of bytes, at least 1/,
    );
  });

  it("names the offending path of an invalid tool rule or tenant block", () => {
    const withTools = (tools: unknown) => ({ ...policy, tools });
    expect(() =>
      startFence(CONTRACTS, withTools({ add_comment: { max_calls_per_run: 1.5 } })),
    ).toThrow(/policy\.tools\.add_comment\.max_calls_per_run: /);
    expect(() =>
      startFence(
        CONTRACTS,
        withTools({ create_ticket: { per_target: { arg: "ticket_id", max: 0, scope: "run" } } }),
      ),
    ).toThrow(/policy\.tools\.create_ticket\.per_target\.max: /);
    expect(() =>
      startFence(
        CONTRACTS,
        withTools({ create_ticket: { per_target: { arg: "title2", max: 1, scope: "run" } } }),
      ),
    ).toThrow(
      /policy\.tools\.create_ticket\.per_target\.arg: create_ticket has no argument "title2"/,
    );
    expect(() => startFence(CONTRACTS, withTools({ drop_table: {} }))).toThrow(
      /policy\.tools\.drop_table: no contract named "drop_table"/,
    );
    const tenants = (block: unknown) => ({ ...policy, tenants: { acme: block } });
    expect(() => startFence(CONTRACTS, tenants({ max_paid_calls: 99 }))).toThrow(
      /policy\.tenants\.acme\.max_paid_calls: loosens the policy/,
    );
    expect(() => startFence(CONTRACTS, tenants({ allowed_tools: ["noop", "drop_table"] }))).toThrow(
      /policy\.tenants\.acme\.allowed_tools\.1: loosens the policy/,
    );
    expect(() => startFence(CONTRACTS, tenants({ deadline: 5 }))).toThrow(
      /policy\.tenants\.acme\.deadline: /,
    );
  });

  it("gives a tenant with a block of its own its tighter limits, and others the policy's", () => {
    const fence = startFence(CONTRACTS, {
      ...policy,
      tenants: { acme: { max_mutations: 1, allowed_tools: ["noop"] } },
    });
    expect(limitsFor(fence, "acme")).toMatchObject({ max_mutations: 1, allowed_tools: ["noop"] });
    expect(limitsFor(fence, "other")).toMatchObject({ max_mutations: 3 });
  });

  it("refuses a policy file with a duplicate key, which JSON.parse would let through", () => {
    const text = JSON.stringify(policy).replace(
      '"max_mutations":3',
      '"max_mutations":3,"max_mutations":30',
    );
    const checked = checkPolicyText(text, CONTRACTS);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.error.join()).toMatch(/duplicate/i);
  });

  it("prints every tool with its effect, caps, timeout and cache TTL for review", () => {
    const report = policyReport(startFence(CONTRACTS, policy));
    expect(report).toMatch(
      /create_ticket\s+mutate\s+yes\s+yes\s+-\s+1 per ticket_id \(tenant\)\s+5000\s+-/,
    );
    expect(report).toMatch(/fetch_service_logs\s+read\s+yes\s+yes\s+20\s+-\s+4000\s+300/);
    expect(report).toMatch(/tenant trial: max_mutations 1/);
  });
});
