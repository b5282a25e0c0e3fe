import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pendingOf } from "../approvals/helpers.ts";
import { dev, json, newRun, runLedger } from "../helpers.ts";
import { POLICY } from "./fence.ts";

function stamp(run: string, doc: string, level: "low" | "high") {
  const headers = { "Idempotency-Key": `key-${doc}-${level}` };
  return dev.propose(run, { tool: "stamp", args: { doc, level } }, { headers });
}

describe("a worker made from one fence", () => {
  it("gates with the tools of its own fence", async () => {
    const listed = await json<{ tools: Array<{ name: string }> }>(await dev.get("/v1/tools"));
    expect(listed.tools.map((t) => t.name)).toEqual(["stamp"]);
    const run = newRun();
    const noop = await dev.propose(run, { tool: "noop", args: {} });
    expect((await json<{ reason: string }>(noop)).reason).toBe("unknown_tool");
  });

  it("opens the run with the same fence's budget, caps and allowed tools", async () => {
    const run = newRun();
    expect((await stamp(run, "d-1", "low")).status).toBe(200);
    const status = await dev.runStatus(run);
    expect(status.budget.mutations.limit).toBe(POLICY.max_mutations);
    expect(status.budget.paid_calls.limit).toBe(POLICY.max_paid_calls);
    expect(status.limits.allowed_tools).toEqual(["stamp"]);
    expect(status.limits.tools.stamp?.max_calls_per_run).toBe(5);
    expect((await stamp(run, "d-2", "low")).status).toBe(200);
    const third = await stamp(run, "d-3", "low");
    expect((await json<{ reason: string }>(third)).reason).toBe("budget_exhausted");
  });

  it("asks for approval by the same fence's rule, for its time to live", async () => {
    const run = newRun();
    const before = Date.now();
    const pending = await pendingOf(await stamp(run, "d-1", "high"));
    expect(pending.rule).toBe("high_stamp");
    const ttl = Date.parse(pending.expires_at) - before;
    expect(ttl).toBeGreaterThanOrEqual(POLICY.approval_ttl_ms - 1_000);
    expect(ttl).toBeLessThanOrEqual(POLICY.approval_ttl_ms + 5_000);
  });

  it("keeps a mutation's key for the same fence's retention", async () => {
    const run = newRun();
    const before = Date.now();
    expect((await stamp(run, "d-1", "low")).status).toBe(200);
    const expires = await runInDurableObject(runLedger(run), (_ledger, state) => {
      const row = state.storage.sql
        .exec<{ expires_at: number }>("SELECT expires_at FROM idempotency_key")
        .one();
      return row.expires_at;
    });
    expect(expires - before).toBeGreaterThanOrEqual(POLICY.idempotency_retention_ms);
    expect(expires - before).toBeLessThanOrEqual(POLICY.idempotency_retention_ms + 5_000);
  });
});
