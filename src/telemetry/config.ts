/**
 * The telemetry settings of one worker, read from its variables under the standard
 * OpenTelemetry names (OpenTelemetry specification, "Environment Variable Specification"
 * and "OTLP Exporter Configuration"). No endpoint: nothing is exported.
 */

/** What the exporter and the sampler read from the worker's variables. */
export interface TelemetryConfig {
  /** The OTLP/HTTP base URL; traces go to `<endpoint>/v1/traces`, metrics to `/v1/metrics`. */
  endpoint: string;
  /** Headers sent with every export (an API key of the backend), from a secret. */
  headers: Record<string, string>;
  /** `service.name` of the fence's resource. */
  serviceName: string;
  /** Share (0 to 1) of applied, cached and replayed calls whose spans are exported. */
  sampleRatio: number;
  /** Least milliseconds between two metric exports of one isolate. */
  metricIntervalMs: number;
  /** Milliseconds buffered spans wait for others before they are sent (one batch per delay). */
  scheduleDelayMs: number;
}

/** The variables the settings are read from (strings, as Worker variables and secrets are). */
export interface TelemetryVars {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_TRACES_SAMPLER_ARG?: string;
  OTEL_METRIC_EXPORT_INTERVAL?: string;
  OTEL_BSP_SCHEDULE_DELAY?: string;
}

/** The service name when OTEL_SERVICE_NAME is not set. */
export const DEFAULT_SERVICE_NAME = "toolfence";

/** The specification's default export interval for metrics (OTEL_METRIC_EXPORT_INTERVAL). */
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
/**
 * The wait before buffered spans are sent. The specification's default for
 * OTEL_BSP_SCHEDULE_DELAY is 5000 ms; a request's `waitUntil` may run only 30 s past its answer,
 * and a shorter wait loses fewer spans when an isolate is evicted, so 1000 ms.
 */
const DEFAULT_SCHEDULE_DELAY_MS = 1_000;
/** The longest wait accepted, well inside `waitUntil`'s 30 s. */
const MAX_SCHEDULE_DELAY_MS = 10_000;

/** Each deployment's settings, read once per isolate: a call asks for them several times. */
const configs = new WeakMap<TelemetryVars, TelemetryConfig | null>();

/** The settings, or null when no endpoint is configured (telemetry off). */
export function telemetryConfig(vars: TelemetryVars): TelemetryConfig | null {
  let config = configs.get(vars);
  if (config === undefined) {
    config = readConfig(vars);
    configs.set(vars, config);
  }
  return config;
}

function readConfig(vars: TelemetryVars): TelemetryConfig | null {
  const endpoint = (vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim().replace(/\/+$/, "");
  if (endpoint === "" || !URL.canParse(endpoint)) return null;
  return {
    endpoint,
    headers: parseHeaders(vars.OTEL_EXPORTER_OTLP_HEADERS ?? ""),
    serviceName: vars.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME,
    sampleRatio: ratioOf(vars.OTEL_TRACES_SAMPLER_ARG),
    metricIntervalMs: intervalOf(vars.OTEL_METRIC_EXPORT_INTERVAL, DEFAULT_METRIC_INTERVAL_MS),
    scheduleDelayMs: Math.min(
      MAX_SCHEDULE_DELAY_MS,
      intervalOf(vars.OTEL_BSP_SCHEDULE_DELAY, DEFAULT_SCHEDULE_DELAY_MS),
    ),
  };
}

/**
 * `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage format the OTLP exporter
 * configuration names for OTEL_EXPORTER_OTLP_HEADERS). A malformed pair is skipped.
 */
export function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    try {
      headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A value that is not valid percent-encoding is skipped, like any malformed pair.
    }
  }
  return headers;
}

/** The sampler argument: a ratio in [0, 1]; absent or unreadable is 1 (keep every trace). */
function ratioOf(text: string | undefined): number {
  const n = Number(text ?? "1");
  return Number.isFinite(n) && text?.trim() !== "" ? Math.min(1, Math.max(0, n)) : 1;
}

function intervalOf(text: string | undefined, fallback: number): number {
  const n = Number(text ?? fallback);
  return Number.isFinite(n) && n >= 0 && text?.trim() !== "" ? n : fallback;
}
