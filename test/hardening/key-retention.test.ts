import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import { checkPolicyText } from "../../src/core/policy-report.ts";
import { startFence } from "../../src/fence.ts";

describe("idempotency key retention", () => {
  it("refuses a policy whose keys would be dropped before its runs end", () => {
    const short = { ...policy, idempotency_retention_ms: 60_000, run_deadline_ms: 900_000 };
    expect(() => startFence(CONTRACTS, short)).toThrow(
      /policy\.idempotency_retention_ms: 60000 ms is shorter than run_deadline_ms \(900000 ms\)/,
    );
  });

  it("fails `policy check` on the same file", () => {
    const short = { ...policy, idempotency_retention_ms: 60_000, run_deadline_ms: 900_000 };
    const checked = checkPolicyText(JSON.stringify(short), CONTRACTS);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.error).toContainEqual(
      expect.stringMatching(/^policy\.idempotency_retention_ms: .*must outlive the run$/),
    );
  });

  it("accepts a retention as long as the run's deadline", () => {
    const even = { ...policy, idempotency_retention_ms: 900_000, run_deadline_ms: 900_000 };
    expect(startFence(CONTRACTS, even).policy.idempotency_retention_ms).toBe(900_000);
  });
});
