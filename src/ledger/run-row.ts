/**
 * The run's row: created once with its effective limits, tightened in place.
 */
import type { RunLimits } from "../core/limits.ts";
import type { RunRef } from "./protocol.ts";
import type { RunRow } from "./views.ts";

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

/** Charge the run and return its row as charged (`run` itself when the call is free). */
export function chargeRun(
  sql: SqlStorage,
  run: RunRow,
  charge: { mutations: number; paid: number },
): RunRow {
  if (charge.mutations === 0 && charge.paid === 0) return run;
  return sql
    .exec<RunRow>(
      `UPDATE run SET mutations_used = mutations_used + ?, paid_used = paid_used + ?
         WHERE id = 1 RETURNING *`,
      charge.mutations,
      charge.paid,
    )
    .one();
}
