/**
 * OTLP/HTTP export (OpenTelemetry Protocol, "OTLP/HTTP"): spans wait in a bounded buffer of the
 * isolate and are sent in batches, protobuf-encoded by the OpenTelemetry transformer, after the
 * answer (`waitUntil`), at most one batch per schedule delay (OTEL_BSP_SCHEDULE_DELAY); metrics
 * are sent with them at most once per export interval, or at once by work with no request to
 * send them after (`exportMetrics`). A failed export is counted and dropped,
 * never retried: telemetry must not grow without bound or hold a call.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { TelemetryConfig } from "./config.ts";
import { telemetrySdk } from "./load.ts";
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
/** The export this isolate has scheduled, or null. */
let scheduled: Promise<void> | null = null;

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
 * Export what waits once the schedule delay has passed (at once when a batch is full), unless
 * an export is already scheduled: that one takes these spans too. Only the request that
 * schedules it waits on it (`defer`), so it runs in that request's context.
 */
export function scheduleFlush(
  config: TelemetryConfig,
  defer: (work: Promise<unknown>) => void,
  send: Send = fetch,
): void {
  if (scheduled !== null) return;
  const delay = queue.length >= BATCH_SPANS ? 0 : config.scheduleDelayMs;
  scheduled = new Promise<void>((resolve) => setTimeout(resolve, delay))
    .then(() => flush(config, send))
    .finally(() => {
      scheduled = null;
    });
  defer(scheduled);
}

/**
 * Send what waits: the buffered spans, then the metrics when the interval has passed. Each
 * request takes its spans out of the buffer first, so concurrent flushes never send one twice.
 */
export async function flush(config: TelemetryConfig, send: Send = fetch): Promise<void> {
  // Spans are queued only by a call the SDK recorded, so it is loaded when any wait.
  const sdk = telemetrySdk();
  if (sdk === undefined) return;
  while (queue.length > 0) {
    const batch = queue.splice(0, BATCH_SPANS);
    const body = sdk.ProtobufTraceSerializer.serializeRequest(batch);
    if (!(await post(config, "/v1/traces", body, send))) lost(config, "traces", batch.length);
  }
  if (Date.now() - lastMetricsAt >= config.metricIntervalMs) await exportMetrics(config, send);
  // Spans buffered while this export ran go out with it, not with some later request's.
  if (queue.length > 0) await flush(config, send);
}

/**
 * Collect the metrics recorded since the last collection and send them now, with no delay and
 * no interval gate: for work that ends before any request would export them (a run's alarm).
 * The interval starts again here, so a request's flush right after sends nothing early. The
 * SDK's delta collection takes out what it returns, so concurrent exports never send the same
 * data twice.
 */
export async function exportMetrics(config: TelemetryConfig, send: Send = fetch): Promise<void> {
  const sdk = telemetrySdk();
  if (sdk === undefined) return;
  lastMetricsAt = Date.now();
  const metrics = await collectMetrics(config);
  if (metrics === null) return;
  const body = sdk.ProtobufMetricsSerializer.serializeRequest(metrics);
  if (!(await post(config, "/v1/metrics", body, send))) lost(config, "metrics", 1);
}

/** Count `n` items of `signal` the export lost. */
function lost(config: TelemetryConfig, signal: string, n: number): void {
  count(instruments(config)?.exportFailures, { "toolfence.telemetry.signal": signal }, n);
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
