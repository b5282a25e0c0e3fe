/**
 * OTLP/HTTP export (OpenTelemetry Protocol, "OTLP/HTTP"): spans wait in a bounded buffer of the
 * isolate and are sent, protobuf-encoded by the OpenTelemetry transformer, after the answer
 * (`waitUntil`); metrics are sent with them at most once per export interval. A failed export
 * is counted and dropped, never retried: telemetry must not grow without bound or hold a call.
 */
import {
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { TelemetryConfig } from "./config.ts";
import { collectMetrics, count, instruments } from "./metrics.ts";

/** The most spans an isolate holds for export; past it new spans are dropped and counted. */
export const MAX_QUEUED_SPANS = 2048;
/** Spans per export request. */
const BATCH_SPANS = 512;
/** How long one export request may take. */
const EXPORT_TIMEOUT_MS = 5_000;
/** OTLP/HTTP binary protobuf (OTLP specification, "Binary Protobuf Encoding"). */
const PROTOBUF = "application/x-protobuf";

const queue: ReadableSpan[] = [];
let lastMetricsAt = 0;

/** How one export is sent; `fetch` unless a test passes its own. */
export type Send = (url: string, init: RequestInit) => Promise<Response>;

/** Put a call's spans in the buffer; those past its bound are dropped and counted. */
export function enqueue(config: TelemetryConfig, spans: readonly ReadableSpan[]): void {
  const room = Math.max(0, MAX_QUEUED_SPANS - queue.length);
  queue.push(...spans.slice(0, room));
  const lost = spans.length - Math.min(room, spans.length);
  if (lost > 0)
    count(instruments(config)?.exportFailures, { "toolfence.telemetry.signal": "traces" }, lost);
}

/** Spans waiting for export in this isolate. */
export function queuedSpans(): number {
  return queue.length;
}

/**
 * Send what waits: the buffered spans, then the metrics when the interval has passed. Each
 * request takes its spans out of the buffer first, so concurrent flushes never send one twice.
 */
export async function flush(config: TelemetryConfig, send: Send = fetch): Promise<void> {
  while (queue.length > 0) {
    const batch = queue.splice(0, BATCH_SPANS);
    const sent = await post(
      config,
      "/v1/traces",
      ProtobufTraceSerializer.serializeRequest(batch),
      send,
    );
    if (!sent)
      count(
        instruments(config)?.exportFailures,
        { "toolfence.telemetry.signal": "traces" },
        batch.length,
      );
  }
  const now = Date.now();
  if (now - lastMetricsAt < config.metricIntervalMs) return;
  lastMetricsAt = now;
  const metrics = await collectMetrics(config);
  if (metrics === null) return;
  const sent = await post(
    config,
    "/v1/metrics",
    ProtobufMetricsSerializer.serializeRequest(metrics),
    send,
  );
  if (!sent)
    count(instruments(config)?.exportFailures, { "toolfence.telemetry.signal": "metrics" });
}

async function post(
  config: TelemetryConfig,
  path: string,
  body: Uint8Array | undefined,
  send: Send,
): Promise<boolean> {
  if (body === undefined) return false;
  try {
    const response = await send(`${config.endpoint}${path}`, {
      method: "POST",
      headers: { ...config.headers, "Content-Type": PROTOBUF },
      body,
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
