import { describe, expect, it } from "vitest";
import { telemetryConfig } from "../../src/telemetry/config.ts";
import {
  enqueue,
  exportMetrics,
  flush,
  MAX_QUEUED_SPANS,
  queuedSpans,
  scheduleFlush,
} from "../../src/telemetry/exporter.ts";
import { loadTelemetry } from "../../src/telemetry/load.ts";
import { instruments } from "../../src/telemetry/metrics.ts";
import { endCall, inCall, inSpan, outgoingTrace, startCall } from "../../src/telemetry/spans.ts";
import { decodeMetrics, decodeTraces } from "./otlp.ts";

const VARS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.test/",
  OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=k%20one,x-team=fence",
  OTEL_SERVICE_NAME: "fence-under-test",
  OTEL_METRIC_EXPORT_INTERVAL: "0",
};
const config = telemetryConfig(VARS);
// The SDK, as the worker loads it before a request when telemetry is configured.
await loadTelemetry(VARS);
if (config === null) throw new Error("the test's telemetry settings are off");
const settings = config;

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

/** What one flush sent, by path. */
async function flushed(failing: "none" | "/v1/traces" = "none") {
  const sent: { url: string; headers: Headers; body: Uint8Array }[] = [];
  await flush(settings, async (url, init) => {
    sent.push({ url, headers: new Headers(init.headers), body: init.body as Uint8Array });
    if (url.endsWith(failing)) throw new TypeError("connection refused");
    return new Response(null, { status: 200 });
  });
  return sent;
}

describe("OTLP/HTTP export", () => {
  it("sends a call's spans as OTLP protobuf, children under the call, the client's trace kept", async () => {
    const call = startCall(
      config,
      { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      "POST /v1/runs/{run_id}/calls",
      { "toolfence.run.id": "run-1" },
    );
    let upstreamHeaders: Record<string, string> = {};
    await inCall(call, async () => {
      await inSpan("toolfence.gate", async () => undefined);
      await inSpan("upstream get_ticket", async () => {
        upstreamHeaders = outgoingTrace();
      });
    });
    enqueue(config, endCall(call, false, config.sampleRatio));
    const sent = (await flushed()).filter((s) => s.url.endsWith("/v1/traces"));

    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe("https://otlp.example.test/v1/traces");
    expect(sent[0]?.headers.get("content-type")).toBe("application/x-protobuf");
    expect(sent[0]?.headers.get("x-api-key")).toBe("k one");
    const [batch] = decodeTraces(sent[0]?.body ?? new Uint8Array());
    expect(batch?.resource["service.name"]).toBe("fence-under-test");
    const byName = new Map(batch?.spans.map((s) => [s.name, s]));
    const server = byName.get("POST /v1/runs/{run_id}/calls");
    expect(server?.traceId).toBe(TRACE_ID);
    expect(server?.parentSpanId).toBe(CLIENT_SPAN);
    expect(server?.kind).toBe(2); // SPAN_KIND_SERVER
    expect(server?.attributes["toolfence.run.id"]).toBe("run-1");
    const upstream = byName.get("upstream get_ticket");
    expect(byName.get("toolfence.gate")?.parentSpanId).toBe(server?.spanId);
    expect(upstream?.parentSpanId).toBe(server?.spanId);
    expect(upstreamHeaders.traceparent).toBe(`00-${TRACE_ID}-${upstream?.spanId}-01`);
    expect(queuedSpans()).toBe(0);
  });

  it("sends the counters as OTLP metrics, and counts an export that failed", async () => {
    await flushed(); // what earlier tests recorded
    instruments(config)?.calls.add(2, {
      "gen_ai.tool.name": "get_ticket",
      "toolfence.decision": "applied",
    });
    const metrics = (await flushed()).find((s) => s.url.endsWith("/v1/metrics"));
    const calls = decodeMetrics(metrics?.body ?? new Uint8Array()).get("toolfence.calls");
    expect(calls).toEqual([
      {
        attributes: { "gen_ai.tool.name": "get_ticket", "toolfence.decision": "applied" },
        value: 2,
      },
    ]);

    const call = startCall(config, {}, "POST /v1/runs/{run_id}/calls", {});
    enqueue(config, endCall(call, true, 1));
    // The spans' export fails; the metrics sent beside it count them as lost.
    const next = (await flushed("/v1/traces")).find((s) => s.url.endsWith("/v1/metrics"));
    const failures = decodeMetrics(next?.body ?? new Uint8Array()).get(
      "toolfence.telemetry.export_failures",
    );
    expect(failures).toEqual([
      { attributes: { "toolfence.telemetry.signal": "traces" }, value: 1 },
    ]);
    expect(queuedSpans()).toBe(0);
  });

  it("never sends the same metrics twice from exports that run at once", async () => {
    await flushed(); // what earlier tests recorded
    instruments(config)?.approvalsRequested.add(3, { "gen_ai.tool.name": "create_ticket" });
    const bodies: Uint8Array[] = [];
    const send = async (_url: string, init: RequestInit) => {
      bodies.push(init.body as Uint8Array);
      return new Response(null, { status: 200 });
    };
    await Promise.all([
      exportMetrics(settings, send),
      exportMetrics(settings, send),
      flush(settings, send),
    ]);
    const requested = bodies.flatMap(
      (body) => decodeMetrics(body).get("toolfence.approvals.requested") ?? [],
    );
    expect(requested).toEqual([{ attributes: { "gen_ai.tool.name": "create_ticket" }, value: 3 }]);
  });

  it("holds at most its bound of spans, counting the ones it drops", async () => {
    const call = startCall(config, {}, "POST /v1/runs/{run_id}/calls", {});
    const [span] = endCall(call, true, 1);
    if (span === undefined) throw new Error("the call recorded no span");
    enqueue(
      config,
      Array.from({ length: MAX_QUEUED_SPANS + 5 }, () => span),
    );
    expect(queuedSpans()).toBe(MAX_QUEUED_SPANS);
    const sent = await flushed();
    const spans = sent.filter((s) => s.url.endsWith("/v1/traces"));
    expect(spans.flatMap((s) => decodeTraces(s.body).flatMap((b) => b.spans))).toHaveLength(
      MAX_QUEUED_SPANS,
    );
    const metrics = sent.find((s) => s.url.endsWith("/v1/metrics"));
    const failures = decodeMetrics(metrics?.body ?? new Uint8Array()).get(
      "toolfence.telemetry.export_failures",
    );
    expect(failures).toEqual([
      { attributes: { "toolfence.telemetry.signal": "traces" }, value: 5 },
    ]);
  });

  it("sends the spans of calls in one schedule delay as one batch, waited on by one request", async () => {
    const deferred: Promise<unknown>[] = [];
    const posts: string[] = [];
    const send = async (path: string, init: RequestInit) => {
      if (path.endsWith("/v1/traces"))
        posts.push(
          ...decodeTraces(init.body as Uint8Array).flatMap((b) => b.spans.map((s) => s.name)),
        );
      return new Response(null, { status: 200 });
    };
    for (const name of ["first", "second", "third"]) {
      enqueue(settings, endCall(startCall(settings, {}, name, {}), true, 1));
      scheduleFlush(settings, (work) => deferred.push(work), send);
    }
    expect(deferred).toHaveLength(1);
    expect(queuedSpans()).toBe(3);
    await Promise.all(deferred);
    expect(posts).toEqual(["first", "second", "third"]);
    expect(queuedSpans()).toBe(0);
  });
});
