import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LedgerProposal } from "../src/ledger/protocol.ts";
import { editRun, newRun, runLedger, verifyAudit } from "./helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "{}", truncated: false };

/** A paid read of the noop, proposed to the run's object directly. */
function paidCall(callId: string, evidence = EVIDENCE): LedgerProposal {
  return {
    callId,
    tool: "noop",
    form: "canonical",
    effect: "read",
    paid: true,
    key: null,
    fingerprint: `fp-${callId}`,
    target: null,
    leaseMs: 60_000,
    args: "{}",
    outcome: null,
    evidence,
  };
}

describe("a decision whose transaction fails", () => {
  it("leaves no charge behind: the run's budget is as the last decision that held left it", async () => {
    const runId = newRun("failed");
    const ref = { tenant: "default", runId };
    const stub = runLedger(runId);
    expect((await stub.propose(ref, paidCall("c1"))).kind).toBe("admit");
    await editRun(stub, "max_paid_calls = 2");
    // The entry's payload is NOT NULL: its insert fails after the run was charged, and the
    // whole transaction, the charge included, rolls back.
    const broken = { ...EVIDENCE, payload: null as unknown as string };
    await runInDurableObject(stub, async (ledger) => {
      await expect(ledger.propose(ref, paidCall("c2", broken))).rejects.toThrow(/NOT NULL/);
    });
    const next = await stub.propose(ref, paidCall("c3"));
    expect(next).toMatchObject({ kind: "admit", budget: { paid_calls: { used: 2, limit: 2 } } });
    expect(await stub.status()).toMatchObject({ budget: { paid_calls: { used: 2 } } });
  });

  it("takes back the entry it appended: the next entry links to the log as committed", async () => {
    const runId = newRun("failed-settle");
    const ref = { tenant: "default", runId };
    const stub = runLedger(runId);
    const keyed = { ...paidCall("c1"), effect: "mutate" as const, key: "k-failed-settle" };
    expect((await stub.propose(ref, keyed)).kind).toBe("admit");
    const settlement = {
      callId: "c1",
      key: keyed.key,
      effect: "mutate" as const,
      outcome: { decision: "applied" as const, reason: null, status: 200, body: "{}", cache: null },
      durationMs: 1,
    };
    // The storage fails on the key's update, after the outcome's entry was appended in the
    // same transaction: the entry rolls back with it.
    await runInDurableObject(stub, (ledger) => {
      const held = ledger as unknown as { sql: SqlStorage };
      const real = held.sql;
      held.sql = new Proxy(real, {
        get: (target, name) =>
          name === "exec"
            ? (query: string, ...bindings: SqlStorageValue[]) => {
                if (query.startsWith("UPDATE idempotency_key")) throw new Error("storage failed");
                return target.exec(query, ...bindings);
              }
            : Reflect.get(target, name),
      });
      try {
        expect(() => ledger.settle(ref, settlement)).toThrow(/storage failed/);
      } finally {
        held.sql = real;
      }
    });
    await stub.settle(ref, settlement);
    expect((await stub.propose(ref, paidCall("c2"))).kind).toBe("admit");
    expect(await verifyAudit(runId)).toMatchObject({ ok: true, entries: 3 });
  });
});
