import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LedgerProposal } from "../../src/ledger/protocol.ts";
import { newRun } from "../helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "{}", truncated: false };
const ACT = { actor: "test-operator", note: "ok", evidence: EVIDENCE };

/** An urgent create_ticket as the ledger receives it; no target rule, so only the run decides. */
function urgent(callId: string, key: string): LedgerProposal {
  return {
    callId,
    tool: "create_ticket",
    form: "canonical",
    effect: "mutate",
    paid: true,
    key,
    fingerprint: "f".repeat(64),
    args: JSON.stringify({ ticket_id: "T-1", priority: "urgent" }),
    target: null,
    leaseMs: 60_000,
    outcome: null,
    evidence: EVIDENCE,
  };
}

describe("a grant in the RunLedger", () => {
  it("admits one call only: a second key with the same payload asks a person again", async () => {
    const runId = newRun("grant");
    const ref = { tenant: "default", runId };
    const stub = env.RUN_LEDGER.getByName(`default/${runId}`);
    const first = await stub.propose(ref, urgent("c-1", "k-grant-0001"));
    if (first.kind !== "approval") throw new Error(`expected approval, got ${first.kind}`);
    const id = first.approval.approval_id;
    expect((await stub.decide(id, "approve", ACT)).kind).toBe("decided");
    expect((await stub.propose(ref, urgent("c-2", "k-grant-0001"))).kind).toBe("admit");
    const again = await stub.propose(ref, urgent("c-3", "k-grant-0002"));
    expect(again.kind).toBe("approval");
    if (again.kind === "approval") expect(again.approval.approval_id).not.toBe(id);
    expect((await stub.status())?.budget.mutations.used).toBe(1);
  });

  it("refuses to decide twice, and a denied grant admits nothing", async () => {
    const runId = newRun("grant");
    const ref = { tenant: "default", runId };
    const stub = env.RUN_LEDGER.getByName(`default/${runId}`);
    const first = await stub.propose(ref, urgent("c-1", "k-grant-0003"));
    if (first.kind !== "approval") throw new Error(`expected approval, got ${first.kind}`);
    const id = first.approval.approval_id;
    expect((await stub.decide(id, "deny", ACT)).kind).toBe("decided");
    const twice = await stub.decide(id, "approve", ACT);
    expect(twice.kind === "refuse" && twice.refusal.reason).toBe("approval_already_decided");
    const denied = await stub.propose(ref, urgent("c-2", "k-grant-0003"));
    expect(denied.kind === "refuse" && denied.refusal.reason).toBe("approval_denied");
  });
});
