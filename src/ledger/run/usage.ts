/**
 * What a run has used of each tool and each target, for per-tool and per-target caps. A tool's
 * uses are the log's own: each entry of a charged call says so (`uses`), folded into tool_use
 * every so often (audit-log.ts), so a call writes no count of its tool. A target's are counted
 * as the call is admitted, in target_use: only calls a per-target rule binds write it.
 */
import type { CallCaps, Charge } from "../../core/admission.ts";
import type { RunLimits } from "../../core/limits.ts";
import type { TargetRule } from "../../core/policy.ts";
import { UNFOLDED, UNFOLDED_USES } from "../audit/audit-log.ts";

/**
 * What the run has used of the caps binding one call: its tool's per-run cap and the per-target
 * cap. A tenant-wide target rule is also counted per run here (the
 * run's share can never exceed the tenant's); a TargetClaims object holds the tenant-wide count.
 */
export function callCaps(
  sql: SqlStorage,
  limits: RunLimits,
  tool: string,
  rule: TargetRule | null,
  target: string | null,
): CallCaps {
  const toolMax = limits.tool_caps[tool];
  const toolCap = toolMax === undefined ? null : { used: toolUsed(sql, tool), max: toolMax };
  if (rule === null || target === null) return { tool: toolCap, target: null };
  const onTarget =
    sql
      .exec<{ used: number }>(
        "SELECT used FROM target_use WHERE tool = ? AND target = ?",
        tool,
        target,
      )
      .toArray()[0]?.used ?? 0;
  const targetCap = { used: onTarget, max: rule.max, arg: rule.arg, value: target };
  return { tool: toolCap, target: targetCap };
}

/**
 * Count an admitted call (or, `calls` negative, its withdrawal) against its target when a rule
 * binds it; answers the uses of its tool that the call's entry adds (null: none).
 */
export function countUse(
  sql: SqlStorage,
  charge: Charge,
  tool: string,
  target: string | null,
): number | null {
  if (charge.calls === 0) return null;
  if (target === null) return charge.calls;
  sql.exec(
    `INSERT INTO target_use (tool, target, used) VALUES (?, ?, ?)
     ON CONFLICT (tool, target) DO UPDATE SET used = used + excluded.used`,
    tool,
    target,
    charge.calls,
  );
  return charge.calls;
}

/** Whether the run admitted a call on `target` of `tool`. */
export function targetUsed(sql: SqlStorage, tool: string, target: string): boolean {
  return (
    sql
      .exec("SELECT 1 FROM target_use WHERE tool = ? AND target = ? AND used > 0", tool, target)
      .toArray().length > 0
  );
}

/** Calls charged per tool so far: those folded into tool_use, and those the log adds since. */
export function toolCalls(sql: SqlStorage): Record<string, number> {
  const calls: Record<string, number> = {};
  const rows = sql.exec<{ tool: string; used: number }>(
    `SELECT tool, SUM(used) AS used FROM (SELECT tool, used FROM tool_use
       UNION ALL ${UNFOLDED_USES}) GROUP BY tool`,
  );
  for (const r of rows.toArray()) calls[r.tool] = r.used;
  return calls;
}

/**
 * Calls charged of `tool` so far, read for a capped tool's call: its folded count by its key, and its own unfolded entries summed, with no grouping of the others.
 */
export function toolUsed(sql: SqlStorage, tool: string): number {
  return sql
    .exec<{ used: number }>(
      `SELECT COALESCE((SELECT used FROM tool_use WHERE tool = ?), 0)
         + COALESCE((SELECT SUM(uses) FROM audit WHERE ${UNFOLDED} AND tool = ?), 0) AS used`,
      tool,
      tool,
    )
    .one().used;
}
