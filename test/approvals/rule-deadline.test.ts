import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import { loadFence } from "../../src/core/policy.ts";
import { approvalStep } from "../../src/ledger/approvals/approval-step.ts";
import { NO_BODY } from "../../src/ledger/run/refusal-keep.ts";
import { readRun } from "../../src/ledger/run/run-row.ts";
import { callerWith, newRun } from "../helpers.ts";

/** The demo policy with `create_ticket`'s urgent rule given `deadline` (none when undefined). */
function policyWith(deadline: string | undefined) {
  const rule = { name: "urgent_ticket", arg: "priority", in: ["urgent"], deadline };
  const tools = {
    ...policy.tools,
    create_ticket: { ...policy.tools.create_ticket, approval: [rule] },
  };
  return { ...policy, tools };
}

describe("a rule's deadline", () => {
  it("is a duration of a second or more; anything else is a policy error", () => {
    expect(loadFence(policyWith("15m"), CONTRACTS).ok).toBe(true);
    expect(loadFence(policyWith("1h30m"), CONTRACTS).ok).toBe(true);
    for (const bad of ["15 minutes", "0s", "", "15"]) {
      const loaded = loadFence(policyWith(bad), CONTRACTS);
      expect(loaded.ok).toBe(false);
      expect(loaded.ok ? "" : loaded.error.join()).toMatch(/deadline/);
    }
  });

  it("is how long the approval a rule opens waits, in place of approval_ttl_ms", async () => {
    const agent = await callerWith();
    const run = newRun();
    // A normal ticket opens the run, whose ledger then decides an urgent one directly.
    const opened = await agent.propose(run, {
      tool: "create_ticket",
      args: { ticket_id: "T-open", title: "Open the run", priority: "low" },
      idempotency_key: "k-open-the-run",
    });
    expect(opened.status).toBe(200);
    const waits = await runInDurableObject(
      env.RUN_LEDGER.getByName(`${agent.tenant}/${run}`),
      (_i, state) =>
        [policyWith("15m"), policyWith(undefined)].map((p, i) => {
          const loaded = loadFence(p, CONTRACTS);
          if (!loaded.ok) throw new Error(loaded.error.join());
          const sql = state.storage.sql;
          const row = readRun(sql);
          if (row === null) throw new Error("the run is open");
          const now = Date.now();
          const scope = {
            sql,
            append: () => {},
            lastSeq: () => 0,
            run: row,
            now,
            fence: loaded.value,
          };
          const args = JSON.stringify({ ticket_id: `T-${i}`, priority: "urgent" });
          const draft = {
            callId: crypto.randomUUID(),
            tool: "create_ticket",
            form: "canonical",
            decision: "pending" as const,
            reason: null,
            status: null,
            key: `k-${i}`,
            fingerprint: `f-${i}`,
            cache: null,
            durationMs: null,
            evidence: NO_BODY,
            args,
          };
          const answer = approvalStep(scope, draft, `k-${i}`, "v");
          if (!("kind" in answer) || answer.kind !== "approval") throw new Error("expected a wait");
          return Date.parse(answer.approval.expires_at) - now;
        }),
    );
    expect(waits).toEqual([15 * 60_000, policy.approval_ttl_ms]);
  });
});
