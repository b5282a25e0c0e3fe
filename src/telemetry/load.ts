/**
 * The OpenTelemetry SDK (src/telemetry/sdk.ts), loaded at the first request of an isolate whose
 * telemetry is configured. The worker awaits it before handling each request
 * (src/worker.ts), so every span and counter a request records synchronously finds it
 * loaded; with no endpoint configured it is never loaded and none of its code runs.
 */
import { type TelemetryVars, telemetryConfig } from "./config.ts";

type Sdk = typeof import("./sdk.ts");

let sdk: Sdk | undefined;
let loading: Promise<Sdk> | undefined;

/** Load the SDK when `vars` configure telemetry (once per isolate); otherwise nothing. */
export async function loadTelemetry(vars: TelemetryVars): Promise<void> {
  if (sdk !== undefined || telemetryConfig(vars) === null) return;
  loading ??= import("./sdk.ts");
  sdk = await loading;
}

/** The SDK, once loaded. */
export function telemetrySdk(): Sdk | undefined {
  return sdk;
}
