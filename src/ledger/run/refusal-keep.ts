/**
 * How the run's log keeps a refusal, so that a flood of refused calls cannot grow it without
 * bound: a call of a run that ended (halted, or past its deadline) is kept without its body,
 * since the run's end refused it before anything the call said mattered; and once the log holds
 * the policy's `max_audit_entries_per_run`, a refusal is counted per reason on the run's row
 * instead of appended. Admitted calls are always appended: the budget and caps bound them.
 */
import type { AuditDraft } from "../audit/audit-draft.ts";
import type { Evidence } from "../protocol.ts";
import type { RunRow } from "../views.ts";

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

/** Count one refusal of `reason` on the run's row; answers the row as stored. */
export function countRefusal(sql: SqlStorage, reason: string): RunRow {
  const path = `$.${reason}`;
  return sql
    .exec<RunRow>(
      `UPDATE run SET refusals_counted = json_set(COALESCE(refusals_counted, '{}'), ?,
         COALESCE(json_extract(refusals_counted, ?), 0) + 1) WHERE id = 1 RETURNING *`,
      path,
      path,
    )
    .one();
}

/** The refusals counted past the entry cap, by reason. */
export function countedRefusals(run: RunRow): Record<string, number> {
  const counted = run.refusals_counted;
  return typeof counted === "string" ? (JSON.parse(counted) as Record<string, number>) : {};
}
