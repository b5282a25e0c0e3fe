/**
 * Once a tool was reached: the call is always settled, never handed back for a re-run and never
 * reported as "nothing was applied", whatever came back and whatever failed afterwards.
 */
import { DECISION_TABLE, type Refusal, refuse } from "../core/reasons.ts";
import type { Execution } from "../execute/execute.ts";
import type { CacheStatus, LedgerProposal, Outcome } from "../ledger/protocol.ts";
import type { SettleAnswer } from "../ledger/run/halt-types.ts";
import { MAX_STORED_ANSWER_BYTES, mutationKey } from "../ledger/run/keys.ts";
import { problemBody } from "./problem.ts";

/** The outcome of a refusal, as the ledger settles it and the edge answers it. */
export function failed(refusal: Refusal, callId: string, cache: CacheStatus | null): Outcome {
  const { decision, status } = DECISION_TABLE[refusal.reason];
  const body = problemBody(refusal, { call_id: callId });
  return { decision, reason: refusal.reason, status, body, cache };
}

/**
 * A mutation that reached its tool and got no usable answer is a `retry` only while the run
 * would admit the retry: with less time left than the call may take, it is an escalation whose
 * effect is unknown, settled so, never advice the deadline would refuse.
 */
export function noRetryLeft(
  execution: Execution,
  p: LedgerProposal,
  admitted: { deadlineAt: number },
): Execution {
  if (execution.ok || p.effect !== "mutate" || p.timeoutMs === undefined) return execution;
  if (DECISION_TABLE[execution.refusal.reason].decision !== "retry") return execution;
  const left = admitted.deadlineAt - Date.now();
  if (left >= p.timeoutMs) return execution;
  const detail = `${p.tool} was called and gave no usable answer (${execution.refusal.reason}), and the ${Math.max(0, left)} ms left before the run's deadline are less than a retry may take; whether it acted is unknown.`;
  const reply = execution.reply === undefined ? {} : { reply: execution.reply };
  return { ok: false, refusal: refuse("upstream_outcome_unknown", detail), ...reply };
}

/**
 * Thrown when the fence fails after the tool was called and the outcome could not be recorded:
 * the tool may have acted, so the answer must not say that nothing was applied.
 */
export class FailedAfterUpstream extends Error {
  override readonly name = "FailedAfterUpstream";
  constructor(
    /** The tool that was called. */
    readonly tool: string,
    /** What failed. */
    override readonly cause: unknown,
  ) {
    super(`the fence failed after calling ${tool}; whether it acted is unknown`);
  }
}

/**
 * Settle the call with `outcome`. The tool was reached, so a failure to record the outcome
 * must not hand the key to a re-run: the call is settled instead as an escalation whose effect
 * is unknown, which a retry with the same key replays. Only when that fails too does the
 * failure reach the edge, as FailedAfterUpstream.
 */
export async function settledOnce(
  settle: (o: Outcome) => Promise<SettleAnswer>,
  outcome: Outcome,
  p: LedgerProposal,
): Promise<{ outcome: Outcome } & SettleAnswer> {
  try {
    return { outcome, ...(await settle(outcome)) };
  } catch (e) {
    console.error("settle failed after the upstream was called", e);
    const detail = `${p.tool} was called, but the fence failed to record its answer (${(e as Error).name}); whether it acted is unknown. The call is settled with this outcome and will not be sent again under this key.`;
    const unknown = failed(refuse("upstream_outcome_unknown", detail), p.callId, outcome.cache);
    try {
      return { outcome: unknown, ...(await settle(unknown)) };
    } catch (again) {
      throw new FailedAfterUpstream(p.tool, again);
    }
  }
}

/**
 * The outcome as a key can keep it: an answer too large for the run's ledger to store for
 * replay becomes the escalation that says so. The tool acted or may have; storing a smaller
 * outcome keeps the key settled, so the retry replays it instead of calling the tool again.
 */
export function keptForReplay(outcome: Outcome, p: LedgerProposal): Outcome {
  if (mutationKey(p) === null) return outcome;
  const bytes = new TextEncoder().encode(outcome.body).byteLength;
  if (bytes <= MAX_STORED_ANSWER_BYTES) return outcome;
  const detail = `${p.tool} answered with ${bytes} bytes, more than the ${MAX_STORED_ANSWER_BYTES} the run's ledger keeps for replay. The tool was reached and may have acted: the call is settled with this outcome, and a retry with the same key replays it.`;
  return failed(refuse("upstream_answer_too_large", detail), p.callId, outcome.cache);
}
