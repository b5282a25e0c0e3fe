import { describe, expect, it } from "vitest";
import { telemetryConfig } from "../../src/telemetry/config.ts";
import { loadTelemetry } from "../../src/telemetry/load.ts";
import {
  endCall,
  inCall,
  keepActiveCall,
  sampledIn,
  startCall,
} from "../../src/telemetry/spans.ts";

const VARS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.test",
  OTEL_TRACES_SAMPLER_ARG: "0.5",
};
const config = telemetryConfig(VARS);
// The SDK, as the worker loads it before a request when telemetry is configured.
await loadTelemetry(VARS);

/** A client trace whose random part (its rightmost 56 bits) is `random`. */
const traceparent = (random: string) => `00-0af7651916cd43dd${random}-b7ad6b7169203331-01`;
const LOW = "0000000000000001";
const HIGH = "00ffffffffffffff";

describe("trace sampling", () => {
  it("reads the ratio from OTEL_TRACES_SAMPLER_ARG", () => {
    expect(config?.sampleRatio).toBe(0.5);
  });

  it("exports an applied call only when its trace is in the sampled share", () => {
    const low = startCall(config, { traceparent: traceparent(LOW) }, "call", {});
    const high = startCall(config, { traceparent: traceparent(HIGH) }, "call", {});
    expect(endCall(low, false, 0.5)).toHaveLength(1);
    expect(endCall(high, false, 0.5)).toEqual([]);
  });

  it("always exports a refusal's, an escalation's or an approval's spans", () => {
    const high = startCall(config, { traceparent: traceparent(HIGH) }, "call", {});
    expect(endCall(high, true, 0)).toHaveLength(1);
  });

  it("always exports a call a guardrail marked", async () => {
    const high = startCall(config, { traceparent: traceparent(HIGH) }, "call", {});
    await inCall(high, async () => keepActiveCall());
    expect(endCall(high, false, 0)).toHaveLength(1);
  });

  it("decides a trace alike in every isolate: by its random bits against the ratio", () => {
    expect(sampledIn(`0af7651916cd43dd${LOW}`, 0.5)).toBe(true);
    expect(sampledIn(`0af7651916cd43dd${HIGH}`, 0.5)).toBe(false);
    expect(sampledIn(`0af7651916cd43dd${HIGH}`, 1)).toBe(true);
    expect(sampledIn(`0af7651916cd43dd${LOW}`, 0)).toBe(false);
  });
});
