import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import { buildApp } from "../../src/app.ts";
import type { ToolContract, Upstream } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { json, newRun, proposeThrough, runLedger } from "../helpers.ts";
import { chargeCard, reply, UpstreamDouble } from "../upstream-double.ts";

/** An app whose charge_card reaches its double with `upstream` merged into its own. */
function appWith(upstream: Record<string, unknown>) {
  const card = { ...chargeCard, upstream: { ...chargeCard.upstream, ...upstream } as Upstream };
  const loaded = loadFence({ ...policy, allowed_tools: ["charge_card"], tools: {} }, [card]);
  if (!loaded.ok) throw new Error(loaded.error.join("; "));
  const app = buildApp(loaded.value);
  return (double: UpstreamDouble, run: string, body: unknown) =>
    proposeThrough(app, { ...env, UPSTREAM: double } as Env, run, body);
}

const charge = {
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 1200 },
  idempotency_key: "k-restarted-01",
};

/**
 * While the tool runs its first call, the fence "restarts": the call's lease runs out and the
 * run's alarm settles it, as if the worker that sent it had died. The tool then answers.
 */
function restartedDuring(run: string): UpstreamDouble {
  return new UpstreamDouble(async (n) => {
    if (n === 1) {
      const stub = runLedger(run);
      await runInDurableObject(stub, (_i, state) => {
        state.storage.sql.exec("UPDATE open_call SET lease_expires_at = 1");
        state.storage.sql.exec("UPDATE idempotency_key SET lease_expires_at = 1");
      });
      await runDurableObjectAlarm(stub);
    }
    return reply(200, { charge_id: `ch_${n}` })();
  });
}

describe("a mutation abandoned mid-call, by its contract's upstream.idempotent", () => {
  it("is sent again under its key when the contract says its upstream honours the key", async () => {
    const propose = appWith({ idempotent: true });
    const run = newRun("restarted");
    const double = restartedDuring(run);
    await propose(double, run, charge);
    const retried = await propose(double, run, charge);
    expect(await json(retried)).toMatchObject({ decision: "applied" });
    expect(double.received).toHaveLength(2);
    const keys = double.received.map((r) => r.headers["idempotency-key"]);
    expect(keys[1]).toBe(keys[0]);
  });

  it("is settled as upstream_outcome_unknown, and never sent again, by default", async () => {
    const propose = appWith({});
    const run = newRun("restarted");
    const double = restartedDuring(run);
    await propose(double, run, charge);
    const retried = await propose(double, run, charge);
    expect(retried.status).toBe(502);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(retried)).toMatchObject({
      decision: "escalate",
      reason: "upstream_outcome_unknown",
    });
    expect(double.received).toHaveLength(1);
  });
});

describe("upstream.idempotent in a contract", () => {
  const problemsOf = (upstream: Record<string, unknown>) => {
    const card = { ...chargeCard, upstream } as unknown as ToolContract;
    const loaded = loadFence({ ...policy, allowed_tools: ["charge_card"], tools: {} }, [card]);
    return loaded.ok ? [] : loaded.error;
  };

  it("is a boolean, on an upstream the fence sends calls to", () => {
    expect(problemsOf({ ...chargeCard.upstream, idempotent: true })).toEqual([]);
    expect(problemsOf({ ...chargeCard.upstream, idempotent: "yes" })).toEqual([
      expect.stringMatching(/^contracts\.charge_card\.upstream\.idempotent: /),
    ]);
    const inline = { kind: "inline", answer: () => ({}), idempotent: true };
    expect(problemsOf(inline)).toEqual([
      expect.stringMatching(/^contracts\.charge_card\.upstream\.idempotent: /),
    ]);
  });

  it("refuses a key the upstream kind does not have, such as a misspelt idempotent", () => {
    expect(problemsOf({ ...chargeCard.upstream, idempotnt: true })).toEqual([
      expect.stringMatching(/^contracts\.charge_card\.upstream\.idempotnt: /),
    ]);
  });
});
