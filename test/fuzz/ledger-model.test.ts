import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, it } from "vitest";
import { editRun, newRun } from "../helpers.ts";
import { decideApproval, lapseApproval } from "./approval-commands.ts";
import {
  abandon,
  duplicates,
  EVIDENCE,
  evict,
  expireLease,
  halt,
  MAX_PAID,
  passDeadline,
  propose,
  proposeUrgent,
  type Real,
  record,
  settle,
  withdraw,
} from "./ledger-commands.ts";
import type { LedgerModel } from "./ledger-model.ts";
import { FUZZ_SEED } from "./seed.ts";

/** A fresh run, created by one recorded refusal, with the paid cap lowered. */
async function setup(): Promise<{ model: LedgerModel; real: Real }> {
  const runId = newRun("model");
  const ref = { tenant: "default", runId };
  const stub = env.RUN_LEDGER.getByName(`default/${runId}`);
  const refusal = { reason: "malformed_payload", detail: "setup" } as const;
  const first = { callId: "call-0", tool: null, form: null, key: null, refusal };
  const { budget } = await stub.record(ref, { ...first, evidence: EVIDENCE });
  await editRun(stub, "max_paid_calls = ?", MAX_PAID);
  const model: LedgerModel = {
    halted: false,
    expired: false,
    mutations: 0,
    paid: 0,
    maxMutations: budget.mutations.limit,
    maxPaid: MAX_PAID,
    keys: new Map(),
    audit: [{ callId: "call-0", decision: "block", reason: "malformed_payload" }],
    open: [],
    calls: 0,
    approvals: [],
  };
  return { model, real: { stub, ref, seen: new Map() } };
}

describe("the RunLedger against its model", () => {
  it("agrees with the model through calls, retries, duplicates, approvals, withdrawals, halts, evictions, expiries and abandoned calls", async () => {
    const commands = fc.commands(
      // Listed more than once to be picked more often: a run halts or expires only once.
      [
        propose,
        propose,
        propose,
        propose,
        settle,
        settle,
        settle,
        withdraw,
        duplicates,
        record,
        expireLease,
        abandon,
        evict,
        proposeUrgent,
        proposeUrgent,
        decideApproval,
        decideApproval,
        lapseApproval,
        fc.oneof(halt, passDeadline),
      ],
      { maxCommands: 40, size: "medium" },
    );
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        await fc.asyncModelRun(setup, cmds);
      }),
      { seed: FUZZ_SEED + 3, numRuns: 40 },
    );
  }, 120_000);
});
