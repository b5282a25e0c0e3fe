/**
 * The OpenTelemetry SDK (its tracer and meter providers, resources and OTLP encoding) is
 * evaluated only in an isolate whose telemetry is configured, and there before the first
 * request is handled: with no endpoint, loading the worker and serving calls runs none of it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../contracts/index.ts";
import { startFence } from "../src/fence.ts";
import { queuedSpans } from "../src/telemetry/exporter.ts";
import { createWorker } from "../src/worker.ts";
import { DEV_KEY, newRun } from "./helpers.ts";

/** The SDK packages whose module a test's worker has evaluated. */
const evaluated = vi.hoisted(() => new Set<string>());

vi.mock("@opentelemetry/sdk-trace", async (original) => {
  evaluated.add("@opentelemetry/sdk-trace");
  return await original();
});
vi.mock("@opentelemetry/sdk-metrics", async (original) => {
  evaluated.add("@opentelemetry/sdk-metrics");
  return await original();
});
vi.mock("@opentelemetry/otlp-transformer", async (original) => {
  evaluated.add("@opentelemetry/otlp-transformer");
  return await original();
});
vi.mock("@opentelemetry/resources", async (original) => {
  evaluated.add("@opentelemetry/resources");
  return await original();
});

const SDK = [
  "@opentelemetry/otlp-transformer",
  "@opentelemetry/resources",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/sdk-trace",
];

/** The test worker's bindings, with the variables `vars` in place of its own. */
const withVars = (vars: Record<string, string>) => ({ ...env, ...vars }) as Env;

/** One call of `noop` through `handler`, with the worker's variables `vars`. */
async function callNoop(
  handler: ReturnType<typeof createWorker>["handler"],
  vars: Record<string, string>,
  wait: boolean,
) {
  const ctx = createExecutionContext();
  const res = await handler.fetch(
    new Request(`http://localhost/v1/runs/${newRun("sdk")}/calls`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${DEV_KEY}`,
        "CF-Connecting-IP": "127.0.0.1",
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ tool: "noop", args: {} }),
    }),
    withVars(vars),
    ctx,
  );
  if (wait) await waitOnExecutionContext(ctx);
  return res;
}

describe("the OpenTelemetry SDK", () => {
  it("is not evaluated when the worker loads or serves calls with no endpoint", async () => {
    const { handler } = createWorker(startFence(CONTRACTS, POLICY_SOURCE));
    const res = await callNoop(handler, { OTEL_EXPORTER_OTLP_ENDPOINT: "" }, true);
    expect(res.status).toBe(200);
    expect((await callNoop(handler, {}, true)).status).toBe(200);
    expect([...evaluated]).toEqual([]);
  });

  it("is loaded at the first request of an isolate whose endpoint is set, and records", async () => {
    const { handler } = createWorker(startFence(CONTRACTS, POLICY_SOURCE));
    const vars = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.test",
      // Long enough that the call's spans still wait for export when the answer is read.
      OTEL_BSP_SCHEDULE_DELAY: "10000",
    };
    // Any route: a request that records outside a call's pipeline finds the SDK loaded.
    const ctx = createExecutionContext();
    const health = await handler.fetch(
      new Request("http://localhost/healthz"),
      withVars(vars),
      ctx,
    );
    expect(health.status).toBe(200);
    expect([...evaluated].sort()).toEqual(SDK);

    expect((await callNoop(handler, vars, false)).status).toBe(200);
    expect(queuedSpans()).toBeGreaterThan(0);
  });
});
