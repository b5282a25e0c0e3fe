/**
 * The run's row: created once with its effective limits, tightened in place, charged.
 */
import type { RunLimits } from "../../core/limits.ts";
import { type Fence, limitsFor } from "../../core/policy.ts";
import type { RunRef } from "../protocol.ts";
import { limitsOf, type RunRow } from "../views.ts";

/**
 * Create the run's row with its effective limits, stored so later policy edits leave it be;
 * answers the row as stored.
 */
export function insertRun(sql: SqlStorage, ref: RunRef, now: number, limits: RunLimits): RunRow {
  return sql
    .exec<RunRow>(
      `INSERT INTO run (id, tenant, run_id, created_at, deadline_at, max_mutations, max_paid_calls,
       allowed_tools, tool_caps, opened_by, local)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      ref.tenant,
      ref.runId,
      now,
      now + limits.deadline_ms,
      limits.max_mutations,
      limits.max_paid_calls,
      toolsColumn(limits),
      JSON.stringify(limits.tool_caps),
      ref.by ?? null,
      ref.local === true ? 1 : 0,
    )
    .one();
}

/**
 * Replace the run's limits with tighter ones; the deadline still counts from creation. Answers
 * the row as stored.
 */
export function storeLimits(sql: SqlStorage, limits: RunLimits): RunRow {
  return sql
    .exec<RunRow>(
      `UPDATE run SET deadline_at = created_at + ?, max_mutations = ?, max_paid_calls = ?,
         allowed_tools = ?, tool_caps = ? WHERE id = 1 RETURNING *`,
      limits.deadline_ms,
      limits.max_mutations,
      limits.max_paid_calls,
      toolsColumn(limits),
      JSON.stringify(limits.tool_caps),
    )
    .one();
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

/**
 * Throw the run's kill switch at `now`, once: a halted run keeps its first halt. Answers the
 * row as halted, or null when it was halted already.
 */
export function haltRun(sql: SqlStorage, now: number, reason: string): RunRow | null {
  return (
    sql
      .exec<RunRow>(
        "UPDATE run SET halted_at = ?, halt_reason = ? WHERE halted_at IS NULL RETURNING *",
        now,
        reason,
      )
      .toArray()[0] ?? null
  );
}

/** The run's row, or null when no call of the run was seen. */
export function readRun(sql: SqlStorage): RunRow | null {
  return sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").toArray()[0] ?? null;
}

/** The run's row, created with the policy's limits for its tenant when the run is new. */
export function runRowOf(sql: SqlStorage, ref: RunRef, now: number, fence: Fence): RunRow {
  return readRun(sql) ?? insertRun(sql, ref, now, limitsFor(fence, ref.tenant));
}

/** The run's effective limits: its stored ones over the policy's for its tenant. */
export function runLimits(row: RunRow, fence: Fence): RunLimits {
  return limitsOf(row, limitsFor(fence, row.tenant));
}
