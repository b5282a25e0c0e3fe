import type { RunLimits } from "../core/limits.ts";
import type { RunRef } from "./protocol.ts";

/** Create the run's row with its effective limits, stored so later policy edits leave it be. */
export function insertRun(sql: SqlStorage, ref: RunRef, now: number, limits: RunLimits): void {
  sql.exec(
    `INSERT INTO run (id, tenant, run_id, created_at, deadline_at, max_mutations, max_paid_calls,
       allowed_tools, tool_caps, opened_by)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ref.tenant,
    ref.runId,
    now,
    now + limits.deadline_ms,
    limits.max_mutations,
    limits.max_paid_calls,
    toolsColumn(limits),
    JSON.stringify(limits.tool_caps),
    ref.by ?? null,
  );
}

/** Replace the run's limits with tighter ones; the deadline still counts from creation. */
export function storeLimits(sql: SqlStorage, limits: RunLimits): void {
  sql.exec(
    `UPDATE run SET deadline_at = created_at + ?, max_mutations = ?, max_paid_calls = ?,
       allowed_tools = ?, tool_caps = ? WHERE id = 1`,
    limits.deadline_ms,
    limits.max_mutations,
    limits.max_paid_calls,
    toolsColumn(limits),
    JSON.stringify(limits.tool_caps),
  );
}

/** NULL when the run allows every tool the policy allows (the gate checks those). */
function toolsColumn(limits: RunLimits): string | null {
  return limits.allowed_tools === null ? null : JSON.stringify(limits.allowed_tools);
}
