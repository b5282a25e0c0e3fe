import { afterEach, describe, expect, it, vi } from "vitest";
import { recordApprovalsExpired } from "../../src/telemetry/alarm.ts";
import { telemetryConfig } from "../../src/telemetry/config.ts";
import { flush } from "../../src/telemetry/exporter.ts";
import { instruments } from "../../src/telemetry/metrics.ts";
import { decodeMetrics } from "./otlp.ts";

const ENDPOINT = "https://otlp.example.test";
const VARS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
  OTEL_METRIC_EXPORT_INTERVAL: "0",
  OTEL_BSP_SCHEDULE_DELAY: "0",
};
const RUN = { tenant: "acme", runId: "run-1", decision: "block", status: 403 };

/** The bodies of the metric exports sent from now on. */
function metricExports(): Uint8Array[] {
  const sent: Uint8Array[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    if (url === `${ENDPOINT}/v1/metrics`) sent.push(init.body as Uint8Array);
    return new Response(null, { status: 200 });
  });
  return sent;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("approvals a run's alarm expires", () => {
  it("are counted as expired approvals, not as calls answered, and exported before the alarm ends", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const sent = metricExports();
    await recordApprovalsExpired(VARS, RUN, [
      { approvalId: "a-1", callId: "c-1", tool: "create_ticket", waitedMs: 60_000 },
      { approvalId: "a-2", callId: "c-2", tool: "create_ticket", waitedMs: 90_000 },
    ]);

    expect(sent).toHaveLength(1);
    const decoded = decodeMetrics(sent[0] ?? new Uint8Array());
    // The agent's next proposal is answered 403 approval_expired, and counted there.
    expect(decoded.get("toolfence.calls")).toBeUndefined();
    expect(decoded.get("toolfence.approvals.decided")).toEqual([
      { attributes: { "toolfence.approval.outcome": "expired" }, value: 2 },
    ]);
    expect(decoded.get("toolfence.approval.decision_time")).toEqual([
      { attributes: { "toolfence.approval.outcome": "expired" }, value: 2 },
    ]);
  });

  it("are sent by each alarm at once, whatever the export interval and schedule delay", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    // The default export interval (60 s), and a schedule delay longer than the test may take.
    const vars = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_BSP_SCHEDULE_DELAY: "10000" };
    const sent = metricExports();
    await recordApprovalsExpired(vars, RUN, [
      { approvalId: "a-3", callId: "c-3", tool: "create_ticket", waitedMs: 30_000 },
    ]);
    await recordApprovalsExpired(vars, RUN, [
      { approvalId: "a-4", callId: "c-4", tool: "create_ticket", waitedMs: 40_000 },
      { approvalId: "a-5", callId: "c-5", tool: "create_ticket", waitedMs: 50_000 },
    ]);

    expect(sent.map((body) => decodeMetrics(body).get("toolfence.approvals.decided"))).toEqual([
      [{ attributes: { "toolfence.approval.outcome": "expired" }, value: 1 }],
      [{ attributes: { "toolfence.approval.outcome": "expired" }, value: 2 }],
    ]);

    // The interval starts again at the alarm's export: a request's flush right after waits it.
    const config = telemetryConfig(vars);
    if (config === null) throw new Error("the test's telemetry settings are off");
    instruments(config)?.approvalsRequested.add(1, { "gen_ai.tool.name": "create_ticket" });
    await flush(config);
    expect(sent).toHaveLength(2);
  });
});
