import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import policy from "../../contracts/policy.json" with { type: "json" };
import { buildApp } from "../../src/app.ts";
import { loadFence } from "../../src/core/policy.ts";
import { editRun, json, newRun, proposeThrough, runLedger } from "../helpers.ts";
import {
  chargeCard,
  getFrom,
  hang,
  reply,
  slowReport,
  UpstreamDouble,
} from "../upstream-double.ts";

// A one-second timeout leaves room for a busy machine between setting a deadline and proposing.
const TIMEOUT_MS = 1_000;
const loaded = loadFence({ ...policy, allowed_tools: ["charge_card", "slow_report"], tools: {} }, [
  { ...chargeCard, timeoutMs: TIMEOUT_MS },
  slowReport,
]);
if (!loaded.ok) throw new Error(loaded.error.join("; "));
const app = buildApp(loaded.value);
const proposeTo = (double: UpstreamDouble, run: string, body: unknown) =>
  proposeThrough(app, { ...env, UPSTREAM: double } as Env, run, body);

const charge = (key: string) => ({
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 100 },
  idempotency_key: key,
});

/** A run that exists, with its deadline `ms` from now. */
async function runEndingIn(double: UpstreamDouble, ms: number): Promise<string> {
  const run = newRun("deadline");
  await proposeTo(double, run, { tool: "slow_report", args: {} });
  await editRun(runLedger(run), "deadline_at = ?", Date.now() + ms);
  return run;
}

describe("a mutation near the run's deadline", () => {
  it("is not sent when less time is left than its timeout", async () => {
    const double = new UpstreamDouble(reply(200, { rows: 1 }));
    const run = await runEndingIn(double, TIMEOUT_MS / 2);
    const res = await proposeTo(double, run, charge("k-late-01"));
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "run_deadline_too_close" });
    expect(double.received).toHaveLength(1);
  });

  it("that times out with no time left for a retry is settled as an escalation", async () => {
    const double = new UpstreamDouble((n) => (n === 1 ? reply(200, { rows: 1 })() : hang(3_000)()));
    const run = await runEndingIn(double, TIMEOUT_MS * 1.8);
    const res = await proposeTo(double, run, charge("k-late-02"));
    const body = await json(res);
    expect(body).toMatchObject({ decision: "escalate", reason: "upstream_outcome_unknown" });
    const again = await proposeTo(double, run, charge("k-late-02"));
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(again)).toMatchObject({ reason: "upstream_outcome_unknown" });
    expect(double.received).toHaveLength(2);
    const listed = await json<{ escalations: { reason: string }[] }>(
      await getFrom(`/v1/runs/${run}/escalations`),
    );
    expect(listed.escalations.map((e) => e.reason)).toEqual(["upstream_outcome_unknown"]);
  });
});
