/**
 * What a run has used of each tool and each target, for per-tool and per-target caps.
 */
import type { CallCaps, Charge } from "../core/admission.ts";
import type { RunLimits } from "../core/limits.ts";
import type { TargetRule } from "../core/policy.ts";

/**
 * What the run has used of the caps binding one call: its tool's per-run cap and the
 * per-target cap. A tenant-wide target rule is also counted per run here (the run's
 * share can never exceed the tenant's); the TenantLedger holds the tenant-wide count.
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
  const used =
    sql
      .exec<{ used: number }>(
        "SELECT used FROM target_use WHERE tool = ? AND target = ?",
        tool,
        target,
      )
      .toArray()[0]?.used ?? 0;
  return { tool: toolCap, target: { used, max: rule.max, arg: rule.arg, value: target } };
}

/** Count an admitted call against its tool and, when a rule binds it, its target. */
export function countUse(
  sql: SqlStorage,
  charge: Charge,
  tool: string,
  target: string | null,
): void {
  if (charge.calls === 0) return;
  sql.exec(
    `INSERT INTO tool_use (tool, used) VALUES (?, ?)
     ON CONFLICT (tool) DO UPDATE SET used = used + excluded.used`,
    tool,
    charge.calls,
  );
  if (target === null) return;
  sql.exec(
    `INSERT INTO target_use (tool, target, used) VALUES (?, ?, ?)
     ON CONFLICT (tool, target) DO UPDATE SET used = used + excluded.used`,
    tool,
    target,
    charge.calls,
  );
}

/** Whether the run admitted a call on `target` of `tool`. */
export function targetUsed(sql: SqlStorage, tool: string, target: string): boolean {
  return (
    sql
      .exec("SELECT 1 FROM target_use WHERE tool = ? AND target = ? AND used > 0", tool, target)
      .toArray().length > 0
  );
}

/** Calls charged per tool so far. */
export function toolCalls(sql: SqlStorage): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const r of sql.exec<{ tool: string; used: number }>("SELECT tool, used FROM tool_use")) {
    calls[r.tool] = r.used;
  }
  return calls;
}

function toolUsed(sql: SqlStorage, tool: string): number {
  return (
    sql.exec<{ used: number }>("SELECT used FROM tool_use WHERE tool = ?", tool).toArray()[0]
      ?.used ?? 0
  );
}
