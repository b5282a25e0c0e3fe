import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import { verifyChain } from "../../src/core/audit-chain.ts";
import type { Outcome, RunRef } from "../../src/ledger/protocol.ts";
import { editRun } from "../helpers.ts";
import { approvalStatuses, OPERATOR, ringInModel } from "./approval-model.ts";
import {
  abandonInModel,
  decisionsOf,
  type Expected,
  type LedgerModel,
  type ModelProposal,
  OUTCOMES,
  proposeInModel,
  settleInModel,
  statusOf,
  withdrawInModel,
} from "./ledger-model.ts";

/** The commands of the RunLedger's model-based test: each acts on the object and the model. */

export type Stub = ReturnType<typeof env.RUN_LEDGER.getByName>;

/** The ledger under test and the run it serves. */
export interface Real {
  stub: Stub;
  ref: RunRef;
  /** Every audit entry seen so far, by seq, as first read: an entry never changes. */
  seen: Map<number, string>;
}

type Cmd = fc.AsyncCommand<LedgerModel, Real>;

const KEYS = ["k-model-0001", "k-model-0002", "k-model-0003", "k-model-0004"];
export const EVIDENCE = { contentType: "application/json", payload: "{}", truncated: false };
/** Lowered at setup so that both budget counters run out within a short command list. */
export const MAX_PAID = 4;

function nextCallId(m: LedgerModel): string {
  m.calls += 1;
  return `call-${m.calls}`;
}

function proposal(p: ModelProposal) {
  const cached: Outcome = {
    decision: "cached",
    reason: null,
    status: 200,
    body: '{"decision":"cached"}',
    cache: "hit-edge",
  };
  return {
    callId: p.callId,
    // Tools the shipped policy puts no per-tool cap on, so only the run's rules apply.
    tool: p.mutates ? "create_ticket" : "noop",
    form: "canonical",
    effect: p.mutates ? ("mutate" as const) : ("read" as const),
    paid: p.paid,
    key: p.key,
    upstreamIdempotent: p.honoured,
    fingerprint: p.fingerprint,
    target: null,
    leaseMs: 60_000,
    // The payload `u` of a mutation is an urgent ticket, which the policy sends to a person.
    args: p.mutates && p.fingerprint === "fp-u" ? '{"priority":"urgent"}' : "{}",
    outcome: p.known === null ? null : cached,
    evidence: EVIDENCE,
  };
}

function expectAnswer(
  m: LedgerModel,
  expected: Expected,
  answer: Awaited<ReturnType<Stub["propose"]>>,
) {
  const got =
    answer.kind === "refuse"
      ? { kind: "refuse", reason: answer.refusal.reason }
      : answer.kind === "replay"
        ? { kind: "replay", status: answer.status }
        : answer.kind === "approval"
          ? { kind: "approval" }
          : { kind: "admit" };
  expect(got).toEqual(expected);
  expect([answer.budget.mutations.used, answer.budget.paid_calls.used]).toEqual([
    m.mutations,
    m.paid,
  ]);
}

/** After every command the published status and the whole audit log match the model. */
async function expectSame(m: LedgerModel, r: Real): Promise<void> {
  const view = await r.stub.status();
  expect(view).not.toBeNull();
  expect({
    status: view?.status,
    mutations: view?.budget.mutations.used,
    paid: view?.budget.paid_calls.used,
    decisions: view?.decisions,
  }).toEqual({
    status: statusOf(m),
    mutations: m.mutations,
    paid: m.paid,
    decisions: decisionsOf(m),
  });
  const page = await r.stub.audit(0, 1_000);
  const audit = page?.kind === "entries" ? page.entries : [];
  for (const e of audit) {
    const now = JSON.stringify(e);
    expect(now, `entry ${e.seq} was changed`).toBe(r.seen.get(e.seq) ?? now);
    r.seen.set(e.seq, now);
  }
  const chain = verifyChain(audit as unknown as Record<string, unknown>[], {
    tenant: r.ref.tenant,
    run: r.ref.runId,
  });
  expect(chain).toMatchObject({ ok: true, entries: audit.length });
  // An operator's entry has a random call id; the model names it by who made it.
  expect(
    audit.map((e) => [e.form === "operator" ? OPERATOR : e.call_id, e.decision, e.reason]),
  ).toEqual(m.audit.map((e) => [e.callId, e.decision, e.reason]));
  // Single use: each grant admitted at most one call, and exactly the one the model says.
  const approvals = (await r.stub.approvals(null)) ?? [];
  expect(approvals.map((a) => [a.status, a.consumed_by_call])).toEqual(
    m.approvals.map((a, i) => [approvalStatuses(m)[i], a.consumer]),
  );
}

export function command(
  label: string,
  check: (m: Readonly<LedgerModel>) => boolean,
  run: (m: LedgerModel, r: Real) => Promise<void>,
): Cmd {
  return {
    check,
    run: async (m, r) => {
      await run(m, r);
      await expectSame(m, r);
    },
    toString: () => label,
  };
}

/** Proposals of every kind; `urgentOnly` draws only the urgent mutation a person must approve. */
function proposals(urgentOnly: boolean) {
  return fc.record({
    mutates: urgentOnly ? fc.constant(true) : fc.boolean(),
    paid: fc.boolean(),
    honoured: fc.boolean(),
    key: fc.constantFrom(...KEYS),
    payload: urgentOnly ? fc.constant("u") : fc.constantFrom("a", "b", "u"),
    cached: fc.boolean(),
  });
}

export const propose = proposals(false).map(proposeCommand);

/** Drawn on its own too, so a grant is often approved and then asked for again. */
export const proposeUrgent = proposals(true).map(proposeCommand);

/** One drawn proposal. */
interface Drawn {
  mutates: boolean;
  paid: boolean;
  honoured: boolean;
  key: string;
  payload: string;
  cached: boolean;
}

function proposeCommand(g: Drawn) {
  const known = !g.mutates && g.cached ? ("cached" as const) : null;
  const label = `propose ${g.mutates ? "mutation" : "read"} ${g.key}/${g.payload}${g.paid ? " paid" : ""}${g.honoured ? "" : " unhonoured"}${known ? " cached" : ""}`;
  return command(
    label,
    () => true,
    async (m, r) => {
      const p: ModelProposal = {
        callId: nextCallId(m),
        mutates: g.mutates,
        paid: g.paid && known === null,
        honoured: g.honoured,
        key: g.key,
        fingerprint: `fp-${g.payload}`,
        known,
      };
      const answer = await r.stub.propose(r.ref, proposal(p));
      expectAnswer(m, proposeInModel(m, p), answer);
    },
  );
}

/** The same mutation sent by several workers at once: one key, one payload. */
export const duplicates = fc
  .tuple(
    fc.constantFrom(...KEYS),
    fc.integer({ min: 2, max: 4 }),
    fc.constantFrom("a", "u"),
    fc.boolean(),
  )
  .map(([key, n, payload, honoured]) =>
    command(
      `${n} concurrent duplicates of ${key}/${payload}`,
      () => true,
      async (m, r) => {
        const ps: ModelProposal[] = Array.from({ length: n }, () => ({
          callId: nextCallId(m),
          mutates: true,
          paid: true,
          honoured,
          key,
          fingerprint: `fp-${payload}`,
          known: null,
        }));
        // Calls from one stub reach the object in the order they were made.
        const answers = await Promise.all(ps.map((p) => r.stub.propose(r.ref, proposal(p))));
        const expected = ps.map((p) => proposeInModel(m, p));
        answers.forEach((a, i) => {
          expect(a.kind).toBe(expected[i]?.kind);
        });
      },
    ),
  );

export const settle = fc
  .tuple(fc.nat(), fc.constantFrom<keyof typeof OUTCOMES>("applied", "retry", "escalate"))
  .map(([i, outcome]) =>
    command(
      `settle open call #${i} as ${outcome}`,
      (m) => m.open.length > 0,
      async (m, r) => {
        const call = settleInModel(m, i % m.open.length, outcome);
        const o = OUTCOMES[outcome];
        const body = JSON.stringify({ decision: o.decision, reason: o.reason });
        await r.stub.settle(r.ref, {
          callId: call.callId,
          key: call.key,
          effect: call.key === null ? "read" : "mutate",
          outcome: { ...o, body, cache: null },
          durationMs: 1,
        });
      },
    ),
  );

/** The worker takes back an admitted call whose tenant-wide claim was refused. */
export const withdraw = fc.nat().map((i) =>
  command(
    `withdraw open call #${i} (its target's claim was refused)`,
    (m) => m.open.length > 0,
    async (m, r) => {
      const call = withdrawInModel(m, i % m.open.length);
      const budget = await r.stub.withdraw(r.ref, {
        callId: call.callId,
        key: call.key,
        target: null,
        charge: call.charge,
        refusal: { reason: "target_cap_exhausted", detail: "generated" },
        durationMs: 1,
      });
      expect([budget.mutations.used, budget.paid_calls.used]).toEqual([m.mutations, m.paid]);
    },
  ),
);

export const record = fc
  .constantFrom("malformed_payload", "contract_violation", "unknown_tool")
  .map((reason) =>
    command(
      `record a gate refusal (${reason})`,
      () => true,
      async (m, r) => {
        const callId = nextCallId(m);
        const refusal = { reason, detail: "generated" } as const;
        const kept = await r.stub.record(r.ref, {
          callId,
          tool: null,
          form: null,
          key: null,
          refusal,
          evidence: EVIDENCE,
        });
        // A run that ended refuses the call for that, before the gate's reason.
        const ended = m.halted ? "run_halted" : m.expired ? "run_deadline_exceeded" : null;
        expect(kept.refusal.reason).toBe(ended ?? reason);
        m.audit.push({ callId, decision: "block", reason: ended ?? reason });
      },
    ),
  );

export const halt = fc.constant(
  command(
    "halt",
    () => true,
    async (m, r) => {
      const act = { actor: "model", note: "model halt", evidence: EVIDENCE };
      const view = await r.stub.halt(r.ref, act, false);
      // The first halt is an entry of the log; a second changes nothing.
      if (!m.halted) m.audit.push({ callId: OPERATOR, decision: "halted", reason: null });
      m.halted = true;
      expect(view?.status).toBe("halted");
      // A halt sets the alarm for now; ring it here, so the model knows when it rang.
      await runDurableObjectAlarm(r.stub);
      ringInModel(m);
    },
  ),
);

export const evict = fc.constant(
  command(
    "evict the object",
    () => true,
    async (_m, r) => {
      await evictDurableObject(r.stub);
    },
  ),
);

export const expireLease = fc.constantFrom(...KEYS).map((key) =>
  command(
    `expire the lease of ${key}`,
    (m) => m.keys.get(key)?.phase === "in_flight",
    async (m, r) => {
      await runInDurableObject(r.stub, (_i, state) => {
        state.storage.sql.exec(
          "UPDATE idempotency_key SET lease_expires_at = ? WHERE key = ?",
          Date.now() - 1,
          key,
        );
      });
      const k = m.keys.get(key);
      if (k !== undefined) k.leaseExpired = true;
    },
  ),
);

/**
 * Every lease of the run runs out, then the alarm rings or the run's status is read: either
 * way, pending entries are abandoned.
 */
export const abandon = fc.constantFrom("ring the alarm", "read the run's status").map((then) =>
  command(
    `let every lease run out and ${then}`,
    (m) => m.audit.some((e) => e.decision === "pending" && !e.closed),
    async (m, r) => {
      await runInDurableObject(r.stub, (_i, state) => {
        state.storage.sql.exec("UPDATE open_call SET lease_expires_at = 1");
      });
      if (then === "ring the alarm") await runDurableObjectAlarm(r.stub);
      else await r.stub.status();
      abandonInModel(m);
      if (then === "ring the alarm") ringInModel(m);
    },
  ),
);

export const passDeadline = fc.constant(
  command(
    "pass the deadline",
    (m) => !m.expired,
    async (m, r) => {
      await editRun(r.stub, "deadline_at = ?", Date.now() - 1);
      m.expired = true;
    },
  ),
);
