/**
 * Opening a run with limits, inside the RunLedger's transaction: the policy's (for its tenant)
 * tightened when the run is new, its stored limits tightened when it exists.
 */
import { type LimitOverride, tighten } from "../../core/limits.ts";
import { type Fence, limitsFor } from "../../core/policy.ts";
import { refuse } from "../../core/reasons.ts";
import type { OpenAnswer, RunRef } from "../protocol.ts";
import type { RunRow } from "../views.ts";
import { insertRun, readRun, runLimits, storeLimits } from "./run-row.ts";
import { statusOf } from "./run-status.ts";

/**
 * Open or tighten the run. Opening again with the same limits changes nothing; a field that
 * would loosen them is refused. Only an operator or the key that opened an existing run may
 * change its limits: any agent key of the tenant could otherwise starve another agent's run
 * (`allowed_tools: []`). Answers with the run's row as the transaction leaves it (null: a run
 * never seen stays unseen), for the ledger's work after the write.
 */
export function openRun(
  sql: SqlStorage,
  ref: RunRef,
  change: { override: LimitOverride; operator: boolean },
  now: number,
  fence: Fence,
): { answer: OpenAnswer; run: RunRow | null } {
  const existing = readRun(sql);
  if (existing !== null && !change.operator && (existing.opened_by ?? null) !== (ref.by ?? null)) {
    const detail = `Only an operator or the key that opened run ${ref.runId} may change its limits.`;
    return {
      answer: { kind: "refuse", refusal: refuse("forbidden_role", detail), field: null },
      run: existing,
    };
  }
  const base = existing === null ? limitsFor(fence, ref.tenant) : runLimits(existing, fence);
  const tightened = tighten(base, change.override, fence.policy.allowed_tools);
  if (!tightened.ok) {
    const { field, detail } = tightened.error;
    const whose = existing === null ? "the policy" : "the run's current limits";
    const refusal = refuse("override_loosens_policy", `${field}: ${detail} by ${whose}.`);
    return { answer: { kind: "refuse", refusal, field }, run: existing };
  }
  const run =
    existing === null
      ? insertRun(sql, ref, now, tightened.value)
      : storeLimits(sql, tightened.value);
  return {
    answer: { kind: "opened", created: existing === null, view: statusOf(sql, run, now, fence) },
    run,
  };
}
