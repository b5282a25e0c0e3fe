import { describe, expect, it } from "vitest";
import policy from "../contracts/policy.json" with { type: "json" };
import { startFence } from "../src/fence.ts";

describe("the policy file", () => {
  it("starts with the shipped policy", () => {
    const fence = startFence(policy);
    expect(fence.policy.max_mutations).toBe(3);
    expect([...fence.tools.keys()].sort()).toEqual([
      "add_comment",
      "create_ticket",
      "fetch_service_logs",
      "noop",
    ]);
  });

  it("refuses to start without a policy", () => {
    expect(() => startFence(undefined)).toThrow(/refuses to start/);
  });

  it("names the offending path of an invalid policy", () => {
    expect(() => startFence({ ...policy, max_mutations: -1 })).toThrow(/policy\.max_mutations/);
    expect(() => startFence({ ...policy, max_mutations: "3" })).toThrow(/policy\.max_mutations/);
    expect(() => startFence({ ...policy, surprise: 1 })).toThrow(/policy\.surprise/);
    const { run_deadline_ms: _, ...missing } = policy;
    expect(() => startFence(missing)).toThrow(/policy\.run_deadline_ms/);
  });

  it("refuses a policy that allows a tool no contract defines", () => {
    const bad = { ...policy, allowed_tools: ["noop", "drop_table"] };
    expect(() => startFence(bad)).toThrow(
      /policy\.allowed_tools\.1: no contract named "drop_table"/,
    );
  });
});
