import type { Effect } from "./contract.ts";
import { type Refusal, refuse } from "./reasons.ts";

/** The brakes and counters of one run, as the RunLedger holds them. */
export interface RunState {
  /** Epoch ms the run was halted, or null while it may go on. */
  haltedAt: number | null;
  /** Epoch ms after which no call of the run is admitted. */
  deadlineAt: number;
  /** Mutations charged so far (one per idempotency key). */
  mutationsUsed: number;
  /** Paid calls charged so far. */
  paidUsed: number;
  /** Most mutations the run may apply. */
  maxMutations: number;
  /** Most paid calls the run may make. */
  maxPaidCalls: number;
}

/** Where an idempotency key stands. */
export type KeyPhase = "in_flight" | "done" | "retryable";

/** The stored state of one idempotency key. */
export interface KeyState {
  /** SHA-256 of the canonical call first sent with the key. */
  fingerprint: string;
  /** Where the key stands. */
  phase: KeyPhase;
  /** Epoch ms after which an `in_flight` key is presumed abandoned. */
  leaseExpiresAt: number;
  /** The call that holds or finished the key. */
  callId: string;
}

/** One proposed call, after the contract gate, as the ledger sees it. */
export interface Proposal {
  /** Whether the tool reads or mutates. */
  effect: Effect;
  /** Whether the call is charged to `max_paid_calls` if it reaches the tool. */
  paid: boolean;
  /** The agent's idempotency key, or null. */
  key: string | null;
  /** SHA-256 of the canonical call. */
  fingerprint: string;
  /** Epoch ms of the decision. */
  now: number;
}

/** What the ledger does with a proposal. */
export type Admission =
  /** Run it; `charge` is what it costs now (zero when the key was already charged). */
  | { kind: "admit"; charge: { mutations: number; paid: number } }
  /** Answer with the stored outcome of `callId`. */
  | { kind: "replay"; callId: string }
  /** Refuse it. */
  | { kind: "refuse"; refusal: Refusal };

const FREE = { mutations: 0, paid: 0 } as const;

/**
 * The run's half of the decision table, in the order the checks apply: the kill switch
 * and the deadline beat everything, a key's stored outcome beats the budget (a replay is
 * free), and the budget is charged once per key (one key = one intent).
 */
export function admit(run: RunState, key: KeyState | null, p: Proposal): Admission {
  if (run.haltedAt !== null)
    return refused("run_halted", "The run was halted; no call of it runs.");
  if (p.now >= run.deadlineAt) {
    return refused("run_deadline_exceeded", `The run's deadline passed at ${iso(run.deadlineAt)}.`);
  }
  if (key !== null) {
    if (key.fingerprint !== p.fingerprint) {
      return refused(
        "idempotency_key_reused",
        "This idempotency key was first used with another payload; use a new key for a new intent.",
      );
    }
    if (key.phase === "done") return { kind: "replay", callId: key.callId };
    if (key.phase === "in_flight" && p.now < key.leaseExpiresAt) {
      return refused(
        "idempotency_key_in_use",
        "The first call with this key is still running; retry after it finishes.",
      );
    }
    // Retryable, or in flight past its lease (its worker died): same intent, already charged.
    return { kind: "admit", charge: FREE };
  }
  const charge = { mutations: p.effect === "mutate" ? 1 : 0, paid: p.paid ? 1 : 0 };
  if (run.mutationsUsed + charge.mutations > run.maxMutations) {
    return refused("budget_exhausted", `The run may apply at most ${run.maxMutations} mutations.`);
  }
  if (run.paidUsed + charge.paid > run.maxPaidCalls) {
    return refused("budget_exhausted", `The run may make at most ${run.maxPaidCalls} paid calls.`);
  }
  return { kind: "admit", charge };
}

function refused(reason: Refusal["reason"], detail: string): Admission {
  return { kind: "refuse", refusal: refuse(reason, detail) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
