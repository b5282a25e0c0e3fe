import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../../demo/contracts/index.ts";
import policy from "../../../demo/contracts/policy.json" with { type: "json" };
import { policyReport } from "../../../src/core/policy-report.ts";
import { startFence } from "../../../src/fence.ts";

describe("the result rules in the policy report", () => {
  it("prints each tool's rules where they differ, where they were set, and which are looser than the default", () => {
    const fence = startFence(CONTRACTS, {
      ...policy,
      results: { email: "redact" },
      tools: {
        ...policy.tools,
        get_ticket: {
          results: {
            secrets: "allow",
            oversized_field: { action: "redact", max_bytes: 1024, fields: ["ticket.body"] },
          },
        },
      },
    });
    const report = policyReport(fence);
    expect(report).toMatch(
      /result rules \(default: secrets redact, payment_card redact, email allow/,
    );
    expect(report).toContain(
      "get_ticket: secrets allow (policy.tools, LOOSER than the default); email redact (policy); oversized_field redact over 1024 B on ticket.body (policy.tools)",
    );
    expect(report).toContain(
      "add_comment: email redact (policy); model_addressed block (policy.tools)",
    );
    expect(report).toContain("noop: email redact (policy)");
    expect(report).toMatch(/^looser than the default result rules: get_ticket$/m);
  });

  it("says a tool runs with the defaults when nothing changes them", () => {
    const report = policyReport(startFence(CONTRACTS, { ...policy, tools: {} }));
    expect(report).toMatch(/^ {2}get_ticket: the defaults$/m);
    expect(report).not.toContain("LOOSER");
  });
});
