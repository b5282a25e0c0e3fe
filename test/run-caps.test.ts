import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FENCE } from "../demo/fence.ts";
import { sha256Hex } from "../src/core/canonical.ts";
import { callerWith, json, newRun } from "./helpers.ts";

const REFUSAL = { reason: "malformed_payload", detail: "setup" } as const;
const EVIDENCE = { contentType: "application/json", payload: "{", truncated: false };
const DONE = { actor: "key-a", note: "done", evidence: EVIDENCE };

/** A run's first call, recorded straight in its ledger as `by` of `tenant`. */
function firstCall(tenant: string, by: string, runId = newRun("cap")) {
  const stub = env.RUN_LEDGER.getByName(`${tenant}/${runId}`);
  const call = { callId: crypto.randomUUID(), tool: null, form: null, key: null };
  return {
    stub,
    runId,
    answer: stub.record({ tenant, runId, by }, { ...call, refusal: REFUSAL, evidence: EVIDENCE }),
  };
}

describe("caps on open runs", () => {
  it("refuses a key's next run once it has the policy's open runs, and creates nothing", async () => {
    const tenant = `caps-${crypto.randomUUID()}`;
    const max = FENCE.policy.max_open_runs_per_key;
    const opened = Array.from({ length: max }, () => firstCall(tenant, "key-a"));
    for (const { answer } of opened)
      expect((await answer).refusal.reason).toBe("malformed_payload");
    const over = firstCall(tenant, "key-a");
    const refused = await over.answer;
    expect(refused.refusal.reason).toBe("run_cap_exhausted");
    expect(refused.refusal.detail).toContain(`(${max})`);
    expect(refused.budget.mutations.used).toBe(0);
    expect(await over.stub.status()).toBeNull();
    // Another key of the tenant still opens runs; a run that exists goes on.
    expect((await firstCall(tenant, "key-b").answer).refusal.reason).toBe("malformed_payload");
    const again = await opened[0]?.stub.record(
      { tenant, runId: opened[0].runId, by: "key-a" },
      { callId: "again", tool: null, form: null, key: null, refusal: REFUSAL, evidence: EVIDENCE },
    );
    expect(again?.refusal.reason).toBe("malformed_payload");
    // A halted run no longer counts: the key may open one more.
    await opened[1]?.stub.halt({ tenant, runId: opened[1].runId, by: "key-a" }, DONE, false);
    expect((await firstCall(tenant, "key-a").answer).refusal.reason).toBe("malformed_payload");
    expect((await firstCall(tenant, "key-a").answer).refusal.reason).toBe("run_cap_exhausted");
  }, 60_000);

  it("counts a tenant's open runs across its keys, and not runs past their deadline", async () => {
    const tenant = env.TENANT_INDEX.getByName(`caps-${crypto.randomUUID()}`);
    const caps = { perKey: 10, perTenant: 3 };
    const now = Date.now();
    const run = (by: string, endsAt = now + 60_000) => ({
      run_id: newRun(),
      created_at: now,
      opened_by: by,
      ends_at: endsAt,
    });
    expect(await tenant.openRun(run("a", now - 1), caps)).toEqual({ ok: true });
    for (const by of ["a", "b", "c"])
      expect(await tenant.openRun(run(by), caps)).toEqual({ ok: true });
    expect(await tenant.openRun(run("d"), caps)).toEqual({
      ok: false,
      scope: "tenant",
      max: 3,
      open: 3,
    });
  });

  it("answers a refused start as problem+json, on every route that starts a run", async () => {
    const operator = await callerWith({ role: "operator" });
    const by = await sha256Hex(operator.key ?? "");
    const max = FENCE.policy.max_open_runs_per_key;
    const opened = Array.from({ length: max }, () => firstCall(operator.tenant, by));
    await Promise.all(opened.map((o) => o.answer));
    const run = newRun();
    const res = await operator.propose(run, { tool: "noop", args: {} });
    expect(res.status).toBe(429);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await json(res)).toMatchObject({ decision: "retry", reason: "run_cap_exhausted" });
    const junk = await operator.propose(run, "{", { contentType: "text/plain" });
    expect(await json(junk)).toMatchObject({ reason: "run_cap_exhausted" });
    expect((await operator.put(`/v1/runs/${run}`, { max_mutations: 1 })).status).toBe(429);
    expect((await operator.get(`/v1/runs/${run}`)).status).toBe(404);
    const ref = (runId: string) => ({ tenant: operator.tenant, runId });
    await Promise.all(opened.map((o) => o.stub.halt(ref(o.runId), DONE, false)));
    expect((await operator.propose(run, { tool: "noop", args: {} })).status).toBe(200);
  }, 60_000);
});
