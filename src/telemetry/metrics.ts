/**
 * The fence's counters and histograms (OpenTelemetry metrics SDK), read by the exporter and
 * sent as OTLP metrics. Delta temporality: each isolate sends what happened since its last
 * export, so the backend adds up the isolates (a Worker has many, each short-lived).
 */
import type { Attributes, Counter, Histogram } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import type { TelemetryConfig } from "./config.ts";
import { instanceId } from "./spans.ts";

/** A reader the exporter collects from when it sends; no timer of its own. */
class OnExportReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Seconds buckets of the duration histograms: 5 ms to 5 min. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds buckets of the time a person takes to decide: 10 s to a day. */
const DECISION_BUCKETS = [10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600];

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

let state: { name: string; reader: OnExportReader; instruments: Instruments } | undefined;

function stateOf(config: TelemetryConfig) {
  if (state?.name === config.serviceName) return state;
  const reader = new OnExportReader();
  const resource = resourceFromAttributes({
    "service.name": config.serviceName,
    "service.instance.id": instanceId(),
  });
  const meter = new MeterProvider({ resource, readers: [reader] }).getMeter("toolfence");
  const seconds = (name: string, description: string, boundaries: number[]) =>
    meter.createHistogram(name, {
      unit: "s",
      description,
      advice: { explicitBucketBoundaries: boundaries },
    });
  state = {
    name: config.serviceName,
    reader,
    instruments: {
      calls: meter.createCounter("toolfence.calls", {
        description: "Proposed calls by tool, decision and reason.",
      }),
      upstreamDuration: seconds(
        "toolfence.upstream.duration",
        "Time an upstream took to answer.",
        SECONDS_BUCKETS,
      ),
      cacheHits: meter.createCounter("toolfence.cache.hits", {
        description: "Reads served from the cache, by tier.",
      }),
      budgetExhausted: meter.createCounter("toolfence.budget.exhausted", {
        description: "Calls refused for an exhausted budget or cap.",
      }),
      approvalsRequested: meter.createCounter("toolfence.approvals.requested", {
        description: "Calls sent to a person for approval.",
      }),
      approvalsDecided: meter.createCounter("toolfence.approvals.decided", {
        description: "Approvals a person decided.",
      }),
      approvalDecisionTime: seconds(
        "toolfence.approval.decision_time",
        "Time from an approval's request to its decision.",
        DECISION_BUCKETS,
      ),
      guardrailFindings: meter.createCounter("toolfence.guardrail.findings", {
        description: "Guardrail findings by rule and action.",
      }),
      exportFailures: meter.createCounter("toolfence.telemetry.export_failures", {
        description: "Telemetry lost: buffer full or export failed.",
      }),
    },
  };
  return state;
}

/** The instruments, or null when telemetry is off (nothing is recorded). */
export function instruments(config: TelemetryConfig | null): Instruments | null {
  return config === null ? null : stateOf(config).instruments;
}

/** What was recorded since the last collection, or null when nothing was. */
export async function collectMetrics(config: TelemetryConfig): Promise<ResourceMetrics | null> {
  const { resourceMetrics } = await stateOf(config).reader.collect();
  const any = resourceMetrics.scopeMetrics.some((s) =>
    s.metrics.some((m) => m.dataPoints.length > 0),
  );
  return any ? resourceMetrics : null;
}

/** Record `value` on `counter` when telemetry is on. */
export function count(counter: Counter | undefined, attributes: Attributes, value = 1): void {
  counter?.add(value, attributes);
}
