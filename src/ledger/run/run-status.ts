/**
 * What the run routes and the console read of a run: its status view and its summary, each
 * a read of the run's row and the small tables kept beside the log.
 */
import type { Fence } from "../../core/policy.ts";
import { pendingApprovals } from "../approvals/approvals.ts";
import { decisionCounts } from "../audit/audit-log.ts";
import type { RunSummary, RunView } from "../protocol.ts";
import { type RunRow, runView } from "../views.ts";
import { listEscalations } from "./operator.ts";
import { runLimits } from "./run-row.ts";
import { toolCalls } from "./usage.ts";

/** Open escalations a summary counts at most (a run with more shows this many). */
const SUMMARY_COUNT_CAP = 1_000;

/** The run's status at `now`. */
export function statusOf(sql: SqlStorage, run: RunRow, now: number, fence: Fence): RunView {
  return runView(run, now, {
    limits: runLimits(run, fence),
    policyTools: fence.policy.allowed_tools,
    decisions: decisionCounts(sql),
    toolCalls: toolCalls(sql),
  });
}

/** The status, when the run last recorded a call, and what waits for an operator. */
export function summaryOf(sql: SqlStorage, run: RunRow, now: number, fence: Fence): RunSummary {
  const last = sql
    .exec<{ at: number }>("SELECT at FROM audit ORDER BY seq DESC LIMIT 1")
    .toArray()[0];
  return {
    ...statusOf(sql, run, now, fence),
    last_activity_at: new Date(last?.at ?? run.created_at).toISOString(),
    // The same lists the operator routes publish, counted.
    open_escalations: listEscalations(sql, "open", 0, SUMMARY_COUNT_CAP).length,
    pending_approvals: pendingApprovals(sql, now),
  };
}
