/**
 * What a run's alarm decides alone, with no request: an approval whose deadline passed is
 * denied (`block`, `approval_expired`). Each is recorded as an approval's outcome (`expired`),
 * with the decision log line that mirrors its audit entry; not on `toolfence.calls`, which
 * counts calls answered (the agent's next proposal is, and is counted then), and no span, as
 * no request is being served. The alarm's isolate may serve no request either, so it loads the
 * SDK and sends the metrics itself before the alarm ends.
 */
import { type TelemetryVars, telemetryConfig } from "./config.ts";
import { logDecision } from "./decision-log.ts";
import { exportMetrics } from "./exporter.ts";
import { loadTelemetry } from "./load.ts";
import { recordApprovalDecided } from "./metrics.ts";

/** The principal of a decision line for what the fence decides alone (the audit's `fence`). */
const FENCE_LINE_PRINCIPAL = "fence";

/** An approval the run's alarm expired. */
export interface ExpiredApproval {
  /** The approval's id. */
  approvalId: string;
  /** The call that asked for it. */
  callId: string;
  /** The tool the call would run. */
  tool: string;
  /** How long it waited, in milliseconds. */
  waitedMs: number;
}

/** Where the expiries happened and how the denial reads (the decision table's row). */
export interface AlarmRun {
  /** Tenant. */
  tenant: string;
  /** Run id. */
  runId: string;
  /** The denial's verdict (`block`). */
  decision: string;
  /** Its HTTP status, as the agent's next proposal is told. */
  status: number;
}

/**
 * Record the approvals `run`'s alarm expired, then export the metrics; resolves once they are
 * sent, so the alarm's isolate holds them no longer than that.
 */
export async function recordApprovalsExpired(
  vars: TelemetryVars,
  run: AlarmRun,
  expired: readonly ExpiredApproval[],
): Promise<void> {
  await loadTelemetry(vars);
  for (const e of expired) {
    logDecision({
      decision: run.decision,
      reason: "approval_expired",
      status: run.status,
      call_id: e.callId,
      cache: null,
      replayed: false,
      approval_id: e.approvalId,
      mutations_left: null,
      paid_calls_left: null,
      tool: e.tool,
      form: null,
      tenant: run.tenant,
      run_id: run.runId,
      principal: FENCE_LINE_PRINCIPAL,
      duration_ms: 0,
      trace_id: null,
    });
    recordApprovalDecided(vars, "expired", e.waitedMs);
  }
  const config = telemetryConfig(vars);
  if (config !== null) await exportMetrics(config);
}
