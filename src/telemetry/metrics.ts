/**
 * The fence's counters and histograms (OpenTelemetry metrics SDK, made in src/telemetry/sdk.ts),
 * read by the exporter and sent as OTLP metrics. Delta temporality: each isolate sends what
 * happened since its last export, so the backend adds up the isolates (a Worker has many, each
 * short-lived).
 */
import type { Attributes, Counter, Histogram } from "@opentelemetry/api";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { type TelemetryConfig, type TelemetryVars, telemetryConfig } from "./config.ts";
import { telemetrySdk } from "./load.ts";

/** Every instrument of the fence. */
export interface Instruments {
  /** Calls by `gen_ai.tool.name`, `toolfence.decision`, `toolfence.reason`. */
  calls: Counter;
  /** Seconds an upstream took, by `gen_ai.tool.name` and `toolfence.upstream.outcome`. */
  upstreamDuration: Histogram;
  /** Cache hits by `toolfence.cache.tier`. */
  cacheHits: Counter;
  /** Calls refused for an exhausted budget or cap, by `toolfence.reason` and tool. */
  budgetExhausted: Counter;
  /** Approvals requested, by tool. */
  approvalsRequested: Counter;
  /** Approvals decided, by `toolfence.approval.outcome`. */
  approvalsDecided: Counter;
  /** Seconds from an approval's request to its decision. */
  approvalDecisionTime: Histogram;
  /** Guardrail findings by `toolfence.guardrail.rule` and `toolfence.guardrail.action`. */
  guardrailFindings: Counter;
  /** Spans and metric exports lost: the buffer was full or the endpoint failed. */
  exportFailures: Counter;
}

/**
 * The instruments, or null when telemetry is off or its SDK is not loaded (nothing is
 * recorded; the worker loads it before a request when telemetry is on: src/telemetry/load.ts).
 */
export function instruments(config: TelemetryConfig | null): Instruments | null {
  const sdk = telemetrySdk();
  return config === null || sdk === undefined ? null : sdk.metersOf(config);
}

/** What was recorded since the last collection, or null when nothing was. */
export async function collectMetrics(config: TelemetryConfig): Promise<ResourceMetrics | null> {
  const sdk = telemetrySdk();
  if (sdk === undefined) return null;
  const resourceMetrics = await sdk.collect(config);
  const any = resourceMetrics.scopeMetrics.some((s) =>
    s.metrics.some((m) => m.dataPoints.length > 0),
  );
  return any ? resourceMetrics : null;
}

/** Record `value` on `counter` when telemetry is on. */
export function count(counter: Counter | undefined, attributes: Attributes, value = 1): void {
  counter?.add(value, attributes);
}

/** Count an approval decided (`approved`, `denied`, `expired`) and how long it waited. */
export function recordApprovalDecided(vars: TelemetryVars, outcome: string, waitedMs: number) {
  const meters = instruments(telemetryConfig(vars));
  count(meters?.approvalsDecided, { "toolfence.approval.outcome": outcome });
  meters?.approvalDecisionTime.record(waitedMs / 1000, { "toolfence.approval.outcome": outcome });
}
