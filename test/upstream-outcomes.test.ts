import { describe, expect, it } from "vitest";
import { editRun, json, newRun, runLedger } from "./helpers.ts";
import { getFrom, hang, proposeTo, reply, type Script, UpstreamDouble } from "./upstream-double.ts";

const charge = (key: string) => ({
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 1200 },
  idempotency_key: key,
});

async function outcomeOf(script: Script) {
  const double = new UpstreamDouble(script);
  const run = newRun();
  const res = await proposeTo(double, run, charge("k-outcome-01"));
  return { res, body: await json(res), double, run };
}

describe("upstream outcomes", () => {
  const rows: [string, Script, number, string, string][] = [
    ["a timeout", hang(1_000), 504, "retry", "upstream_timeout"],
    ["a 500", reply(500, { error: "boom" }), 502, "retry", "upstream_unavailable"],
    ["a 503", reply(503, {}), 502, "retry", "upstream_unavailable"],
    ["a 429", reply(429, {}), 502, "retry", "upstream_unavailable"],
    [
      "a network error",
      () => Promise.reject(new TypeError("connection reset")),
      502,
      "retry",
      "upstream_unavailable",
    ],
    ["a 401", reply(401, {}), 502, "escalate", "upstream_authz"],
    ["a 403", reply(403, {}), 502, "escalate", "upstream_authz"],
    ["a 400", reply(400, {}), 502, "escalate", "upstream_rejected"],
    ["a 404", reply(404, {}), 502, "escalate", "upstream_rejected"],
    ["a 409", reply(409, {}), 502, "escalate", "upstream_rejected"],
    ["a 422", reply(422, {}), 502, "escalate", "upstream_rejected"],
    [
      "an answer outside the output contract",
      reply(200, { charge_id: 42 }),
      502,
      "escalate",
      "output_contract_violation",
    ],
    [
      "an answer that is not JSON",
      () => Promise.resolve(new Response("<html>ok</html>")),
      502,
      "escalate",
      "output_contract_violation",
    ],
  ];
  for (const [name, script, status, decision, reason] of rows) {
    it(`maps ${name} to ${status} ${decision} ${reason}`, async () => {
      const { res, body } = await outcomeOf(script);
      expect(res.status).toBe(status);
      expect(res.headers.get("Content-Type")).toBe("application/problem+json");
      expect(body).toMatchObject({ decision, reason });
    });
  }

  it("applies a valid answer and sends only the validated arguments", async () => {
    const { res, body, double } = await outcomeOf(reply(201, { charge_id: "ch_1" }));
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ decision: "applied", result: { charge_id: "ch_1" } });
    expect(double.received).toHaveLength(1);
    const sent = double.received[0];
    expect(sent?.url).toBe("https://upstream.internal/accounts/acct-7/charges");
    expect(JSON.parse(sent?.body ?? "")).toEqual({ account: "acct-7", amount_cents: 1200 });
  });

  it("charges a timed-out mutation once, each call of the paid tool, and sends the same Idempotency-Key on retry", async () => {
    const double = new UpstreamDouble((n) =>
      n === 1 ? hang(1_000)() : reply(200, { charge_id: "ch_2" })(),
    );
    const run = newRun();
    const first = await proposeTo(double, run, charge("k-timeout-01"));
    expect(first.status).toBe(504);
    const second = await proposeTo(double, run, charge("k-timeout-01"));
    expect(second.status).toBe(200);
    const third = await proposeTo(double, run, charge("k-timeout-01"));
    expect(third.headers.get("Idempotent-Replayed")).toBe("true");
    expect(double.received).toHaveLength(2);
    const keys = double.received.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^tf-[0-9a-f]{64}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await json(third)).toMatchObject({
      decision: "replayed",
      // One intent, one mutation; the tool was reached twice, so two paid calls.
      budget: { mutations: { used: 1 }, paid_calls: { used: 2 } },
    });
  });

  it("derives a different upstream key for the same agent key in another run", async () => {
    const double = new UpstreamDouble(reply(200, { charge_id: "ch_3" }));
    await proposeTo(double, newRun(), charge("k-shared-001"));
    await proposeTo(double, newRun(), charge("k-shared-001"));
    const [a, b] = double.received.map((r) => r.headers["idempotency-key"]);
    expect(a).not.toBe(b);
  });

  it("replays an escalation instead of calling the upstream again, and lists it for a human", async () => {
    const double = new UpstreamDouble(reply(409, { error: "duplicate" }));
    const run = newRun();
    const first = await proposeTo(double, run, charge("k-escalate-1"));
    const again = await proposeTo(double, run, charge("k-escalate-1"));
    expect(first.status).toBe(502);
    expect(again.status).toBe(502);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(double.received).toHaveLength(1);
    const listed = await json<{ escalations: { reason: string; payload: string }[] }>(
      await getFrom(`/v1/runs/${run}/escalations`),
    );
    expect(listed.escalations.map((e) => e.reason)).toEqual(["upstream_rejected"]);
    expect(JSON.parse(listed.escalations[0]?.payload ?? "")).toEqual(charge("k-escalate-1"));
  });

  it("does not let a slow upstream hold a run past its deadline", async () => {
    const double = new UpstreamDouble(hang(3_000));
    const run = newRun();
    await proposeTo(double, run, {
      tool: "charge_card",
      args: { account: "a", amount_cents: 1 },
      idempotency_key: "k-warmup-01",
    });
    await editRun(runLedger(run), "deadline_at = ?", Date.now() + 150);
    const res = await proposeTo(double, run, { tool: "slow_report", args: {} });
    expect(res.status).toBe(504);
    const body = await json<{ reason: string; detail: string }>(res);
    expect(body.reason).toBe("upstream_timeout");
    const limit = Number(/within (\d+) ms/.exec(body.detail)?.[1]);
    expect(limit).toBeGreaterThan(0);
    expect(limit).toBeLessThanOrEqual(150);
  });
});
