import { env } from "cloudflare:workers";
import type { AuditPrincipal } from "../../src/core/principal.ts";
import type { LedgerProposal, RunRef } from "../../src/ledger/protocol.ts";
import { newRun } from "../helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "{}", truncated: false };
const ISSUER = "https://idp.example";

/** A person signed in through the identity provider, which verified their email unless told. */
export function person(sub: string, email: string, verified = true): AuditPrincipal {
  return { kind: "person", iss: ISSUER, sub, email, ...(verified ? { email_verified: true } : {}) };
}

/** An operator's act on an approval, by `principal`. */
export function actBy(principal: AuditPrincipal, actor: string) {
  return { actor, principal, note: "", evidence: EVIDENCE };
}

/**
 * A create_ticket for `ticketId` as the run's ledger receives it: urgent for a `T-` ticket
 * (the `urgent_ticket` rule asks), else low, so the rule its id matches asks.
 */
export function ticket(ticketId: string, key: string): LedgerProposal {
  const priority = ticketId.startsWith("T-") ? "urgent" : "low";
  return {
    callId: crypto.randomUUID(),
    tool: "create_ticket",
    form: "canonical",
    effect: "mutate",
    paid: true,
    key,
    fingerprint: "a".repeat(64),
    args: JSON.stringify({ ticket_id: ticketId, title: "t", priority }),
    target: null,
    leaseMs: 60_000,
    outcome: null,
    evidence: EVIDENCE,
  };
}

/** A new run's ledger, and the approval its first `ticketId` call opened, proposed by `by`. */
export async function openedBy(by: AuditPrincipal | undefined, ticketId: string) {
  const runId = newRun("deciders");
  const ref: RunRef =
    by === undefined ? { tenant: "default", runId } : { tenant: "default", runId, principal: by };
  const stub = env.RUN_LEDGER.getByName(`default/${runId}`);
  const first = await stub.propose(ref, ticket(ticketId, "k-deciders-0001"));
  if (first.kind !== "approval") throw new Error(`expected approval, got ${first.kind}`);
  return { stub, ref, id: first.approval.approval_id };
}
