import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import type { InboxCount } from "../../demo/upstreams/inbox.ts";
import { DECISION_TABLE, type Reason } from "../../src/core/reasons.ts";
import { DEV_KEY, demoUpstreams, foldCalls, newRun, runStatus } from "../helpers.ts";
import { type FuzzCall, runOfCalls, validMutation } from "./arbitraries.ts";
import { FUZZ_SEED } from "./seed.ts";
import { keyOf, requestInit, SUCCESSES } from "./send.ts";
import { TOOLS } from "./tools.ts";

/** The local development key: the fuzz runs as the development operator. */
const AUTH = { Authorization: `Bearer ${DEV_KEY}`, "CF-Connecting-IP": "127.0.0.1" };

const MUTATING = new Set(TOOLS.filter((t) => t.mutates).map((t) => t.name));

interface Answer {
  call: FuzzCall;
  status: number;
  body: { decision?: string; reason?: string };
}

async function send(run: string, call: FuzzCall): Promise<Answer> {
  const url = `http://localhost/v1/runs/${run}/calls`;
  const res = await exports.default.fetch(url, requestInit(call, AUTH));
  return { call, status: res.status, body: (await res.json()) as Answer["body"] };
}

/** Calls in order, or in concurrent pairs so that duplicates race for one key. */
async function sendAll(run: string, calls: FuzzCall[], pairs: boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < calls.length; i += pairs ? 2 : 1) {
    const batch = calls.slice(i, pairs ? i + 2 : i + 1);
    answers.push(...(await Promise.all(batch.map((c) => send(run, c)))));
  }
  return answers;
}

/** Each answer is a success or a refusal exactly as the decision table states it. */
function expectFromTable(a: Answer): void {
  const { decision, reason } = a.body;
  const label = { kind: a.call.kind, status: a.status, decision, reason };
  if (a.status === 200) {
    expect(SUCCESSES.has(decision ?? ""), JSON.stringify(label)).toBe(true);
    expect(a.call.valid, `an invalid call was applied: ${JSON.stringify(a.call)}`).toBe(true);
    return;
  }
  const rule = DECISION_TABLE[reason as Reason];
  expect(rule, JSON.stringify(label)).toBeDefined();
  expect({ status: rule?.status, decision: rule?.decision }).toEqual({
    status: a.status,
    decision,
  });
  // A 5xx is only ever the tool's failure passed on, never the fence's own.
  if (a.status >= 500) expect(reason, JSON.stringify(label)).toMatch(/^upstream_|^output_/);
}

/** Calls in the run's audit (an outcome entry is `of` its call's first), and calls left open. */
async function auditCount(run: string): Promise<{ entries: number; pending: number }> {
  let after = 0;
  const calls: { seq: number; of: number | null; decision: string }[] = [];
  for (;;) {
    const res = await exports.default.fetch(
      `http://localhost/v1/runs/${run}/audit?after=${after}&limit=1000`,
      { headers: AUTH },
    );
    const page = (await res.json()) as {
      entries: { seq: number; of: number | null; decision: string }[];
      next_after: number | null;
    };
    calls.push(...page.entries);
    if (page.next_after === null) {
      const folded = foldCalls(calls);
      return {
        entries: folded.length,
        pending: folded.filter((e) => e.decision === "pending").length,
      };
    }
    after = page.next_after;
  }
}

async function inbox(run: string): Promise<InboxCount> {
  const res = await demoUpstreams().fetch(`https://demo.internal/inbox/default/${run}`);
  return (await res.json()) as InboxCount;
}

describe("the fence under generated junk", () => {
  it("has a spy in the upstreams that sees every call and flags one outside its contract", async () => {
    const run = newRun("spy");
    const call = { tool: "fetch_service_logs", args: { service: "auth", window: "5m" } };
    const res = await exports.default.fetch(`http://localhost/v1/runs/${run}/calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...AUTH },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(200);
    expect(await inbox(run)).toEqual({ received: 1, violations: 0, keys: {} });
    const forged = await demoUpstreams().fetch("https://demo.internal/logs/query", {
      method: "POST",
      headers: { "X-Toolfence-Run": run, "Content-Type": "application/json" },
      body: JSON.stringify({ service: "Auth", window: "24 hours" }),
    });
    expect(forged.status).toBe(400);
    expect(await inbox(run)).toEqual({ received: 2, violations: 1, keys: {} });
  });

  const property = (calls: fc.Arbitrary<FuzzCall[]>) =>
    fc.asyncProperty(calls, fc.boolean(), async (sent, pairs) => {
      const run = newRun("fuzz");
      const answers = await sendAll(run, sent, pairs);
      for (const a of answers) expectFromTable(a);

      const applied = answers.filter(
        (a) => a.body.decision === "applied" && MUTATING.has(a.call.tool ?? ""),
      );
      expect(applied.length).toBeLessThanOrEqual(FENCE.policy.max_mutations);
      const keys = applied.map((a) => keyOf(a.call));
      expect(new Set(keys).size, "one key applied twice").toBe(keys.length);

      const received = await inbox(run);
      expect(received.violations, "a call outside its contract reached a tool").toBe(0);
      expect(Object.keys(received.keys).length).toBeLessThanOrEqual(FENCE.policy.max_mutations);
      for (const n of Object.values(received.keys)) expect(n).toBe(1);

      expect(await auditCount(run)).toEqual({ entries: sent.length, pending: 0 });
      const status = await runStatus(run);
      expect(status.budget.mutations.used).toBeLessThanOrEqual(FENCE.policy.max_mutations);
    });

  it("applies no invalid call, stays in budget, and audits every call once", async () => {
    const calls = runOfCalls(1, 12);
    await fc.assert(property(calls), { seed: FUZZ_SEED + 2, numRuns: 50 });
  }, 60_000);

  it("stops a burst of valid mutations at the budget, one application per key", async () => {
    const calls = fc.array(validMutation, { minLength: 4, maxLength: 10 });
    await fc.assert(property(calls), { seed: FUZZ_SEED + 4, numRuns: 15 });
  }, 60_000);
});
