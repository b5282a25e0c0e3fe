/**
 * The stateful half of the decision table, as a pure function: halt, deadline, the run's tool
 * list, the idempotency key's state, caps and budget decide admit, replay or refuse.
 */
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
  /** Tools the run may call when its limits allow fewer than the policy, else null. */
  allowedTools: readonly string[] | null;
}

/** What the run has used of a cap, and the cap itself. */
export interface CapUse {
  /** Calls charged so far. */
  used: number;
  /** The most calls allowed. */
  max: number;
}

/** The caps that bind one call, besides the run-wide budget. */
export interface CallCaps {
  /** The run's cap on calls of this tool, or null when uncapped. */
  tool: CapUse | null;
  /** The per-target cap: calls of this tool on the call's target (`arg` = `value`). */
  target: (CapUse & { arg: string; value: string }) | null;
}

/** No cap besides the budget. */
export const UNCAPPED: CallCaps = { tool: null, target: null };

/** Where an idempotency key stands. */
export type KeyPhase = "in_flight" | "done" | "retryable";

/** The stored state of one idempotency key. */
export interface KeyState {
  /** SHA-256 of the canonical call first sent with the key. */
  fingerprint: string;
  /** Where the key stands. */
  phase: KeyPhase;
  /**
   * Epoch ms after which an `in_flight` key is presumed abandoned: the ledger settles its call
   * before it decides a proposal with the key (src/ledger/run/abandon.ts).
   */
  leaseExpiresAt: number;
  /** The call that holds or finished the key. */
  callId: string;
}

/** One proposed call, after the contract gate, as the ledger sees it. */
export interface Proposal {
  /** Exact tool name. */
  tool: string;
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
  /** How long the call may take upstream, when it will be sent there. */
  timeoutMs?: number;
}

/** What the ledger does with a proposal. */
export type Admission =
  /** Run it; `charge` is what it costs now (a retry of a charged key: its paid call only). */
  | { kind: "admit"; charge: Charge }
  /** Answer with the stored outcome of `callId`. */
  | { kind: "replay"; callId: string }
  /** Refuse it. */
  | { kind: "refuse"; refusal: Refusal };

/** What an admitted call costs; `calls` counts it against its tool and target caps. */
export interface Charge {
  /** Mutations charged. */
  mutations: number;
  /** Paid calls charged. */
  paid: number;
  /** 1 when the call counts against the tool's and target's caps, else 0. */
  calls: number;
}

const FREE: Charge = { mutations: 0, paid: 0, calls: 0 };

/**
 * The run's half of the decision table, in the order the checks apply: the kill switch
 * and the deadline beat everything, then the run's own tool list; a key's stored outcome
 * beats every cap (a replay is free); then the caps from the most specific to the widest
 * (target, tool, run budget). Mutations and the tool's and target's caps are charged once
 * per key (one key = one intent); a paid call is charged each time it reaches the tool, a
 * retry of a key included, so no loop of retries passes `max_paid_calls`.
 */
export function admit(
  run: RunState,
  key: KeyState | null,
  p: Proposal,
  caps: CallCaps = UNCAPPED,
): Admission {
  const ended = endedRefusal(run, p.now);
  if (ended !== null) return { kind: "refuse", refusal: ended };
  if (run.allowedTools !== null && !run.allowedTools.includes(p.tool)) {
    return refused("tool_not_allowed", `${p.tool} is not allowed by this run's limits.`);
  }
  if (key !== null) {
    if (key.fingerprint !== p.fingerprint) {
      return refused(
        "idempotency_key_reused",
        "This idempotency key was first used with another payload; use a new key for a new intent.",
      );
    }
    if (key.phase === "done") return { kind: "replay", callId: key.callId };
    // A call that held the key past its lease was settled before (src/ledger/run/abandon.ts).
    if (key.phase === "in_flight") {
      return refused(
        "idempotency_key_in_use",
        "The first call with this key is still running; retry after it finishes.",
      );
    }
    // Retryable: same intent, its mutation and caps charged already. It reaches the tool
    // again: a paid tool's call is a paid call.
    if (!p.paid) return tooClose(run, p) ?? { kind: "admit", charge: FREE };
    const charge = { ...FREE, paid: 1 };
    return tooClose(run, p) ?? paidRefusal(run, charge) ?? { kind: "admit", charge };
  }
  const close = tooClose(run, p);
  if (close !== null) return close;
  const capped = capRefusal(p.tool, caps);
  if (capped !== null) return capped;
  const charge = { mutations: p.effect === "mutate" ? 1 : 0, paid: p.paid ? 1 : 0, calls: 1 };
  if (run.mutationsUsed + charge.mutations > run.maxMutations) {
    return refused("budget_exhausted", `The run may apply at most ${run.maxMutations} mutations.`);
  }
  return paidRefusal(run, charge) ?? { kind: "admit", charge };
}

/** The refusal of a charge that would pass the run's paid calls, or null. */
function paidRefusal(run: RunState, charge: Charge): Admission | null {
  if (run.paidUsed + charge.paid <= run.maxPaidCalls) return null;
  return refused("budget_exhausted", `The run may make at most ${run.maxPaidCalls} paid calls.`);
}

/**
 * A mutation sent with less time left than it may take could act upstream and answer after
 * the deadline, when no retry is admitted: its effect would be silent. It is not sent.
 */
function tooClose(run: RunState, p: Proposal): Admission | null {
  if (p.effect !== "mutate" || p.timeoutMs === undefined) return null;
  const left = run.deadlineAt - p.now;
  if (left >= p.timeoutMs) return null;
  return refused(
    "run_deadline_too_close",
    `The run's deadline at ${iso(run.deadlineAt)} leaves ${left} ms, less than the ${p.timeoutMs} ms this mutation may take; it was not sent.`,
  );
}

/**
 * The refusal of every call of a run that ended (halted, or past its deadline), or null while
 * it is open. It comes before anything else about the call is looked at.
 */
export function endedRefusal(
  run: Pick<RunState, "haltedAt" | "deadlineAt">,
  now: number,
): Refusal | null {
  if (run.haltedAt !== null) return refuse("run_halted", "The run was halted; no call of it runs.");
  if (now >= run.deadlineAt) {
    return refuse("run_deadline_exceeded", `The run's deadline passed at ${iso(run.deadlineAt)}.`);
  }
  return null;
}

function capRefusal(tool: string, caps: CallCaps): Admission | null {
  const { target } = caps;
  if (target !== null && target.used >= target.max) {
    return refused(
      "target_cap_exhausted",
      `${tool} may run at most ${target.max} time(s) per ${target.arg} in this run; ${target.arg} ${JSON.stringify(target.value)} has had ${target.used}.`,
    );
  }
  if (caps.tool !== null && caps.tool.used >= caps.tool.max) {
    return refused(
      "tool_cap_exhausted",
      `The run may call ${tool} at most ${caps.tool.max} times.`,
    );
  }
  return null;
}

function refused(reason: Refusal["reason"], detail: string): Admission {
  return { kind: "refuse", refusal: refuse(reason, detail) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
