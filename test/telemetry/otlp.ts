/**
 * The official OTLP protobuf definitions (opentelemetry-proto, test/e2e/otlp-proto/), loaded
 * with protobufjs to decode what an exporter sent, as a collector would.
 */
import protobuf from "protobufjs";
import metricsService from "../e2e/otlp-proto/opentelemetry/proto/collector/metrics/v1/metrics_service.proto?raw";
import traceService from "../e2e/otlp-proto/opentelemetry/proto/collector/trace/v1/trace_service.proto?raw";
import common from "../e2e/otlp-proto/opentelemetry/proto/common/v1/common.proto?raw";
import metrics from "../e2e/otlp-proto/opentelemetry/proto/metrics/v1/metrics.proto?raw";
import resource from "../e2e/otlp-proto/opentelemetry/proto/resource/v1/resource.proto?raw";
import traces from "../e2e/otlp-proto/opentelemetry/proto/trace/v1/trace.proto?raw";

const root = new protobuf.Root();
for (const text of [common, resource, traces, metrics, traceService, metricsService]) {
  protobuf.parse(text, root, { keepCase: true });
}

/** An attribute as decoded: one of the AnyValue members. */
type AnyValue = {
  string_value?: string;
  int_value?: number;
  bool_value?: boolean;
  double_value?: number;
};
/** A key-value attribute. */
export interface KeyValue {
  key: string;
  value: AnyValue;
}
/** A span as decoded, ids in hex. */
export interface DecodedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
}

function anyValue(v: AnyValue): string | number | boolean {
  return v.string_value ?? v.int_value ?? v.bool_value ?? v.double_value ?? "";
}

/** Attributes as a plain record. */
export function attributesOf(
  list: KeyValue[] | undefined,
): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

const hex = (b: Uint8Array | undefined) =>
  Array.from(b ?? [], (x) => x.toString(16).padStart(2, "0")).join("");

/** Every span of an ExportTraceServiceRequest, with its resource's attributes. */
export function decodeTraces(
  body: Uint8Array,
): { resource: Record<string, unknown>; spans: DecodedSpan[] }[] {
  const type = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
  const request = type.toObject(type.decode(body), { longs: Number, defaults: false }) as {
    resource_spans?: {
      resource?: { attributes?: KeyValue[] };
      scope_spans?: { spans?: Record<string, unknown>[] }[];
    }[];
  };
  return (request.resource_spans ?? []).map((rs) => ({
    resource: attributesOf(rs.resource?.attributes),
    spans: (rs.scope_spans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        name: s.name as string,
        kind: (s.kind as number | undefined) ?? 0,
        traceId: hex(s.trace_id as Uint8Array),
        spanId: hex(s.span_id as Uint8Array),
        parentSpanId: hex(s.parent_span_id as Uint8Array | undefined),
        attributes: attributesOf(s.attributes as KeyValue[] | undefined),
      })),
    ),
  }));
}

/** Each metric of an ExportMetricsServiceRequest by name, with its data points' attributes and values. */
export function decodeMetrics(
  body: Uint8Array,
): Map<string, { attributes: Record<string, unknown>; value: number }[]> {
  const type = root.lookupType(
    "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
  );
  const request = type.toObject(type.decode(body), { longs: Number, defaults: false }) as {
    resource_metrics?: { scope_metrics?: { metrics?: Record<string, unknown>[] }[] }[];
  };
  const found = new Map<string, { attributes: Record<string, unknown>; value: number }[]>();
  for (const rm of request.resource_metrics ?? []) {
    for (const sm of rm.scope_metrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const data = (m.sum ?? m.histogram) as
          | { data_points?: Record<string, unknown>[] }
          | undefined;
        const points = (data?.data_points ?? []).map((p) => ({
          attributes: attributesOf(p.attributes as KeyValue[] | undefined),
          value: Number(p.as_int ?? p.as_double ?? p.count ?? 0),
        }));
        found.set(m.name as string, [...(found.get(m.name as string) ?? []), ...points]);
      }
    }
  }
  return found;
}
