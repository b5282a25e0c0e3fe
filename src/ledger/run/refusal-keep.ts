/**
 * How the run's log keeps a refusal, so that a flood of refused calls cannot grow it without
 * bound: a call of a run that ended (halted, or past its deadline) is kept without its body,
 * since the run's end refused it before anything the call said mattered; and once the log holds
 * the policy's `max_audit_entries_per_run`, a refusal is counted per reason on the run's row
 * instead of appended, except the first of each reason and tool, which is still appended in
 * full: a flood of cheap refusals cannot hide a refusal of another kind (a forged
 * `delete_everything`). Tool names no contract has are the caller's to choose, so they share
 * one slot: what is kept past the cap is bounded by the reasons times the contracts (plus one).
 * Admitted calls are always appended: the budget and caps bound them.
 */
import { DECISION_TABLE, type Refusal } from "../../core/reasons.ts";
import type { AuditDraft } from "../audit/audit-draft.ts";
import type { Evidence, Rejection } from "../protocol.ts";

/** The entry of a refused call: its decision, reason and status from the decision table. */
export function refusalDraft(draft: AuditDraft, refusal: Refusal): AuditDraft {
  const rule = DECISION_TABLE[refusal.reason];
  return { ...draft, decision: rule.decision, reason: refusal.reason, status: rule.status };
}

/** The entry of a call refused before the run's rules (parse or contract gate). */
export function rejectionDraft(r: Rejection): AuditDraft {
  const draft: AuditDraft = {
    ...r,
    decision: "block",
    reason: null,
    status: null,
    fingerprint: null,
    cache: null,
    durationMs: null,
  };
  return refusalDraft(draft, r.refusal);
}

/** What an entry kept without the call's body shows of it. */
export const NO_BODY: Evidence = { contentType: null, payload: "", truncated: false };

/** The draft without the call's body. */
export function withoutBody(draft: AuditDraft): AuditDraft {
  return { ...draft, evidence: NO_BODY };
}

/** Whether a log of `entries` entries is full (`max` kept): a later refusal is counted. */
export function logFull(entries: number, max: number): boolean {
  return entries >= max;
}

/**
 * Whether a refusal of `reason` of `tool` (null: none could be read) is the first of its kind
 * past the log's cap, and so appended; the kind is marked kept. A tool `known` to no contract
 * is kept under '', with every other such name.
 */
export function firstPastCap(
  sql: SqlStorage,
  reason: string,
  tool: string | null,
  known: (tool: string) => boolean,
): boolean {
  const kind = tool !== null && known(tool) ? tool : "";
  return (
    sql.exec(
      "INSERT INTO refusal_kept (reason, tool) VALUES (?, ?) ON CONFLICT DO NOTHING",
      reason,
      kind,
    ).rowsWritten > 0
  );
}

/** Count one refusal of `reason` on the run's row. */
export function countRefusal(sql: SqlStorage, reason: string): void {
  const path = `$.${reason}`;
  sql.exec(
    `UPDATE run SET refusals_counted = json_set(COALESCE(refusals_counted, '{}'), ?,
       COALESCE(json_extract(refusals_counted, ?), 0) + 1) WHERE id = 1`,
    path,
    path,
  );
}

/** The refusals counted past the entry cap, by reason. */
export function countedRefusals(run: { refusals_counted: string | null }): Record<string, number> {
  const counted = run.refusals_counted;
  return typeof counted === "string" ? (JSON.parse(counted) as Record<string, number>) : {};
}
