import { describe, expect, it } from "vitest";
import { fetchServiceLogs } from "../../demo/contracts/fetch_service_logs.ts";
import { validateOutput } from "../../src/core/validate.ts";
import { dev, json, newRun } from "../helpers.ts";
import { proposeTo, reply, UpstreamDouble } from "../upstream-double.ts";

/** An answer with `n` unknown members, each with a long name and a long value (7 kB each). */
function flood(n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`member_${i}_${"k".repeat(2000)}`] = "v".repeat(5000);
  return out;
}

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;

describe("text an upstream sends back", () => {
  it("is bounded in the problem, the audit and the key's stored answer", async () => {
    const double = new UpstreamDouble(reply(200, flood(120)));
    const run = newRun("bounded");
    const call = {
      tool: "charge_card",
      args: { account: "acct-7", amount_cents: 100 },
      idempotency_key: "k-bounded-01",
    };
    const res = await proposeTo(double, run, call);
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(bytes(text)).toBeLessThan(8 * 1024);
    const problem = JSON.parse(text) as { reason: string; issues: unknown[]; detail: string };
    expect(problem.reason).toBe("output_contract_violation");
    expect(problem.issues.length).toBeLessThanOrEqual(10);
    expect(bytes(problem.detail)).toBeLessThan(2 * 1024);
    const replay = await proposeTo(double, run, call);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(bytes(await replay.text())).toBeLessThan(8 * 1024);
    const audit = await dev.get(`/v1/runs/${run}/audit`);
    expect(bytes(JSON.stringify(await json(audit)))).toBeLessThan(8 * 1024);
    expect(double.received.length).toBe(1);
  });
});

describe("an answer with many problems", () => {
  it("lists at most ten issues and names how many more there are", () => {
    const logs = Array.from({ length: 300 }, (_, i) => ({ [`line_${"x".repeat(500)}`]: i }));
    const checked = validateOutput(fetchServiceLogs, { logs });
    if (checked.ok) throw new Error("expected a refusal");
    expect(checked.error.issues?.length).toBe(10);
    expect(checked.error.detail).toMatch(
      /^300 problems in the output of fetch_service_logs: .* and 290 more$/,
    );
    expect(bytes(JSON.stringify(checked.error))).toBeLessThan(8 * 1024);
  });
});
