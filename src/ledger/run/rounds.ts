/**
 * The input rounds of one admitted call, inside the RunLedger's transaction. An MCP tool may
 * answer a call by asking the client for input (MCP 2026-07-28, multi round-trip requests);
 * the call stays open, charged once and audited once, while the client answers, and its retry
 * continues it instead of being proposed again. Each round the fence hands out is answered at
 * most once: `awaitRound` records that round `n` waits, `resumeRound` takes that wait, so a
 * request state replayed, or one of a round that was followed by another, continues nothing.
 */
import { type Refusal, refuse } from "../../core/reasons.ts";
import type { RoundStep } from "../protocol.ts";
import type { RunRow } from "../views.ts";

/**
 * The call's tool asked for input in round `step.round` (counted from 1): the round waits
 * until `now + step.leaseMs` (the call and its key stay held that long). False when the call
 * is no longer open (the alarm closed it) or its rounds are not where this one follows.
 */
export function awaitRound(sql: SqlStorage, step: RoundStep, now: number): boolean {
  const until = now + step.leaseMs;
  const waiting = sql.exec(
    "UPDATE open_call SET rounds = ?, awaiting = 1, lease_expires_at = ? WHERE call_id = ? AND rounds = ? AND awaiting = 0",
    step.round,
    until,
    step.callId,
    step.round - 1,
  ).rowsWritten;
  if (waiting === 0) return false;
  holdKeyUntil(sql, step.callId, until);
  return true;
}

/**
 * The client's answer to round `step.round` continues the call: its wait is taken and the call
 * is held for one more run of its tool (`step.leaseMs`). A refusal when the run has ended, or
 * when this round is not the one the call waits on (answered already, superseded, or the call
 * closed): nothing is charged or run.
 */
export function resumeRound(
  sql: SqlStorage,
  run: RunRow,
  step: RoundStep,
  now: number,
): Refusal | null {
  if (run.halted_at !== null) {
    return refuse("run_halted", "The run was halted while its call waited for input.");
  }
  if (now >= run.deadline_at) {
    return refuse("run_deadline_exceeded", "The run's deadline passed while the call waited.");
  }
  const until = now + step.leaseMs;
  const taken = sql.exec(
    `UPDATE open_call SET awaiting = 0, lease_expires_at = ?
     WHERE call_id = ? AND rounds = ? AND awaiting = 1 AND lease_expires_at > ?`,
    until,
    step.callId,
    step.round,
    now,
  ).rowsWritten;
  if (taken === 0) {
    const detail = `This request state (round ${step.round} of its call) continues nothing: it was answered already, a later round replaced it, its wait ran out, or its call has ended. Send the call again without it.`;
    return refuse("malformed_payload", detail);
  }
  holdKeyUntil(sql, step.callId, until);
  return null;
}

/** The lease of the key the open call holds, if any, moved to `until`. */
function holdKeyUntil(sql: SqlStorage, callId: string, until: number): void {
  sql.exec(
    "UPDATE idempotency_key SET lease_expires_at = ? WHERE call_id = ? AND phase = 'in_flight'",
    until,
    callId,
  );
}
