/**
 * The OpenTelemetry SDK's part of the telemetry: the tracer and meter providers and the OTLP
 * protobuf encoding. Loaded (`import()`) only once telemetry is configured (src/telemetry/load.ts),
 * so a worker that exports nothing never evaluates the SDK's modules at startup.
 */
import type { Context, Tracer } from "@opentelemetry/api";
import {
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  AlwaysOnSampler,
  type ReadableSpan,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { TelemetryConfig } from "./config.ts";
import type { Instruments } from "./metrics.ts";
import { CALL, CallSpans, instanceId, MAX_SPANS_PER_CALL, SCOPE } from "./spans.ts";

export { ProtobufMetricsSerializer, ProtobufTraceSerializer };

/** Routes each ended span to the call whose context it was started in. */
class CallRouter implements SpanProcessor {
  private readonly owners = new WeakMap<object, CallSpans>();
  onStart(span: object, parent: Context): void {
    const call = parent.getValue(CALL);
    if (call instanceof CallSpans) this.owners.set(span, call);
  }
  onEnd(span: ReadableSpan): void {
    const call = this.owners.get(span);
    if (call !== undefined && call.spans.length < MAX_SPANS_PER_CALL) call.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function resourceOf(config: TelemetryConfig) {
  return resourceFromAttributes({
    "service.name": config.serviceName,
    "service.instance.id": instanceId(),
  });
}

let provider: { name: string; tracer: Tracer } | undefined;

/** The tracer of the fence's spans for `config`'s service. */
export function tracerOf(config: TelemetryConfig): Tracer {
  if (provider?.name !== config.serviceName) {
    // Every call is recorded; which are exported is decided once its outcome is known.
    const sdk = new TracerProvider({
      resource: resourceOf(config),
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new CallRouter()],
    });
    provider = { name: config.serviceName, tracer: sdk.getTracer(SCOPE) };
  }
  return provider.tracer;
}

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

let state: { name: string; reader: OnExportReader; instruments: Instruments } | undefined;

function stateOf(config: TelemetryConfig) {
  if (state?.name === config.serviceName) return state;
  const reader = new OnExportReader();
  const meter = new MeterProvider({ resource: resourceOf(config), readers: [reader] }).getMeter(
    "toolfence",
  );
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

/** The instruments of `config`'s service. */
export function metersOf(config: TelemetryConfig): Instruments {
  return stateOf(config).instruments;
}

/** What was recorded since the last collection. */
export async function collect(config: TelemetryConfig): Promise<ResourceMetrics> {
  return (await stateOf(config).reader.collect()).resourceMetrics;
}
