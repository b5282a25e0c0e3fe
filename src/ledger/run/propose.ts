/**
 * Deciding a proposed call inside the RunLedger's transaction: admit, replay, refuse it or ask
 * a person, charge the run and write the entry. The ledger runs this in one `transactionSync`
 * and does the waiting (the alarm, the run index) after it.
 */
import { admit, endedRefusal, type KeyState, UNCAPPED } from "../../core/admission.ts";
import { targetRuleOf } from "../../core/policy.ts";
import type { Refusal } from "../../core/reasons.ts";
import { approvalStep } from "../approvals/approval-step.ts";
import type { AuditDraft } from "../audit/audit-draft.ts";
import type { LedgerAnswer, LedgerProposal, Rejection } from "../protocol.ts";
import { budgetView, type RunRow, runState } from "../views.ts";
import { holdKey, mutationKey, readKey, storedAnswer } from "./keys.ts";
import type { LedgerScope } from "./operator.ts";
import {
  countRefusal,
  firstPastCap,
  logFull,
  refusalDraft,
  rejectionDraft,
  withoutBody,
} from "./refusal-keep.ts";
import { chargeRun, runLimits } from "./run-row.ts";
import { callCaps, countUse } from "./usage.ts";

/** What a decision needs of the ledger. */
export interface ProposeScope {
  /** The run's storage, its row (created if new), the decision's time and the one append. */
  ledger: LedgerScope;
  /** Settle a call that held the proposal's key past its lease (abandon.ts, lapseCall). */
  lapse: (callId: string, run: RunRow) => void;
}

/**
 * Keep a refusal in the run's log: without the call's body when the run ended, only counted
 * when the log is full and it is not the first of its reason and tool (refusal-keep.ts).
 */
export function keepRefusal(s: Omit<ProposeScope, "lapse">, draft: AuditDraft): void {
  const { sql, run, append, fence, lastSeq } = s.ledger;
  const reason = draft.reason ?? "unknown";
  if (
    logFull(lastSeq(), fence.policy.max_audit_entries_per_run) &&
    !firstPastCap(sql, reason, draft.tool, (tool) => fence.tools.has(tool))
  ) {
    countRefusal(sql, reason);
    return;
  }
  const ended = endedRefusal(
    { haltedAt: run.halted_at, deadlineAt: run.deadline_at },
    s.ledger.now,
  );
  append(ended === null ? draft : withoutBody(draft), run);
}

/** Record a call refused at the gate; a run that ended refuses it for that. Answers the refusal. */
export function recordRejection(s: Omit<ProposeScope, "lapse">, r: Rejection): Refusal {
  const { run, now } = s.ledger;
  const ended = endedRefusal({ haltedAt: run.halted_at, deadlineAt: run.deadline_at }, now);
  const refusal = ended ?? r.refusal;
  keepRefusal(s, rejectionDraft({ ...r, refusal }));
  return refusal;
}

/**
 * The key's state; a call that held it past its lease (its worker died) is settled first, as a
 * read of the run would settle it, so the key says what a new proposal with it gets.
 */
function heldKey(s: ProposeScope, key: string): KeyState | null {
  const { sql, run, now } = s.ledger;
  const stored = readKey(sql, key);
  if (stored?.phase !== "in_flight" || now < stored.leaseExpiresAt) return stored;
  s.lapse(stored.callId, run);
  return readKey(sql, key);
}

/** Decide the call; `version` is the policy's, for an approval. */
export function decideProposal(s: ProposeScope, p: LedgerProposal, version: string): LedgerAnswer {
  const { sql, run, now, append, fence } = s.ledger;
  const key = mutationKey(p);
  const limits = runLimits(run, fence);
  const stored = key === null ? null : heldKey(s, key);
  // A cache hit never reaches the tool: no cap binds it. (A tool the fence answers
  // itself also comes with its outcome, but it did run.)
  const reaches = p.outcome?.decision !== "cached";
  const rule = targetRuleOf(fence, p.tool);
  const caps = reaches ? callCaps(sql, limits, p.tool, rule, p.target) : UNCAPPED;
  // A tool the fence answers itself comes with its outcome: no time is needed for it.
  const timeout = p.outcome === null && p.timeoutMs !== undefined ? { timeoutMs: p.timeoutMs } : {};
  const decision = admit(runState(run, limits), stored, { ...p, key, now, ...timeout }, caps);
  const draft = { ...p, reason: null, status: null, cache: null, durationMs: null };
  if (decision.kind === "refuse") {
    keepRefusal(s, refusalDraft({ ...draft, decision: "block" }, decision.refusal));
    return { kind: "refuse", refusal: decision.refusal, budget: budgetView(run) };
  }
  if (decision.kind === "replay") {
    const original = storedAnswer(sql, key ?? "");
    append({ ...draft, decision: "replayed", status: original.status }, run);
    return { kind: "replay", ...original, budget: budgetView(run) };
  }
  // A new intent that reaches the tool may need a person first; a retry of an admitted
  // intent (charged already) was approved, if it had to be, when it was admitted.
  const asked =
    reaches && decision.charge.calls > 0
      ? approvalStep(s.ledger, { ...draft, decision: "pending" }, key, version)
      : { approvalId: null };
  if ("kind" in asked) return asked;
  const row = chargeRun(sql, run, decision.charge);
  const uses = reaches ? countUse(sql, decision.charge, p.tool, p.target) : null;
  if (key !== null) holdKey(sql, key, p, now, fence.policy.idempotency_retention_ms);
  const outcome = p.outcome;
  const approvalId = asked.approvalId;
  append(
    outcome === null
      ? { ...draft, decision: "pending", leaseExpiresAt: now + p.leaseMs, approvalId, uses }
      : { ...draft, ...outcome, durationMs: Date.now() - now, approvalId, uses },
    row,
  );
  return {
    kind: "admit",
    budget: budgetView(row),
    deadlineAt: row.deadline_at,
    approvalId,
    charge: decision.charge,
  };
}
