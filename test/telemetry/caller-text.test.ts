import { afterEach, describe, expect, it, vi } from "vitest";
import { type CallStart, traceCall } from "../../src/telemetry/call.ts";
import { telemetryConfig } from "../../src/telemetry/config.ts";
import { flush } from "../../src/telemetry/exporter.ts";
import { loadTelemetry } from "../../src/telemetry/load.ts";
import { noteCall } from "../../src/telemetry/spans.ts";
import { type DecodedSpan, decodeMetrics, decodeTraces } from "./otlp.ts";

// What a caller names reaches a backend that indexes every attribute and keeps a series per
// label: a tool name no contract has, or a JSON-RPC id, must arrive bounded and printable.
const VARS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.test/",
  OTEL_METRIC_EXPORT_INTERVAL: "0",
  // The test sends what was recorded itself (flush); the call's own export waits past it.
  OTEL_BSP_SCHEDULE_DELAY: "10000",
};
const config = telemetryConfig(VARS);
await loadTelemetry(VARS);
if (config === null) throw new Error("the test's telemetry settings are off");
const settings = config;

/** A tool name no contract has: 57 KB, with a bell, a bidi override and a zero-width space. */
const HOSTILE = `probe\u0007\u202e\u200b${"n".repeat(57_000)}`;

function start(mcp: CallStart["mcp"] = null): CallStart {
  return {
    vars: VARS,
    carrier: {},
    mcp,
    tenant: "t",
    runId: "r",
    principal: "dev",
    defer: () => undefined,
  };
}

/** One call through the tracing, answered as the gate answers a name no contract has. */
function unknownCall(name: string, mcp: CallStart["mcp"] = null) {
  return traceCall(start(mcp), async () => {
    noteCall(name, mcp === null ? "canonical" : "mcp");
    const body = { decision: "block", reason: "unknown_tool", call_id: "c-1" };
    return { status: 422, body, cache: null, replayed: false };
  });
}

/** What one flush sent: the spans and the metrics, decoded. */
async function exported() {
  const spans: DecodedSpan[] = [];
  let metrics = new Map<string, { attributes: Record<string, unknown>; value: number }[]>();
  await flush(settings, async (url, init) => {
    const body = init.body as Uint8Array;
    if (url.endsWith("/v1/traces")) spans.push(...decodeTraces(body).flatMap((b) => b.spans));
    else metrics = decodeMetrics(body);
    return new Response(null, { status: 200 });
  });
  return { spans, metrics };
}

/** The decision lines written while `work` ran. */
async function decisionLines(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  await work();
  return log.mock.calls
    .map(([first]) => (typeof first === "string" ? first : ""))
    .filter((text) => text.includes('"event":"toolfence.decision"'))
    .map((text) => JSON.parse(text) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
});

const printable = /^[^\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]*$/u;

describe("what a caller sent, in telemetry", () => {
  it("labels a tool no contract has `(unknown)` in spans and metrics: one series, not one per name", async () => {
    await exported(); // whatever the module recorded before
    await decisionLines(async () => {
      for (let i = 0; i < 1_010; i++) await unknownCall(`made_up_${i}`);
    });
    const { spans, metrics } = await exported();
    expect(spans).toHaveLength(1_010);
    expect(new Set(spans.map((s) => s.attributes["gen_ai.tool.name"]))).toEqual(
      new Set(["(unknown)"]),
    );
    expect(metrics.get("toolfence.calls")).toEqual([
      {
        attributes: {
          "gen_ai.tool.name": "(unknown)",
          "toolfence.decision": "block",
          "toolfence.reason": "unknown_tool",
        },
        value: 1_010,
      },
    ]);
  });

  it("bounds every attribute a caller chose, and strips control and format characters", async () => {
    await exported();
    const lines = await decisionLines(() =>
      unknownCall(HOSTILE, { method: "tools/call", requestId: `id\u0000${"9".repeat(60_000)}` }),
    );
    const { spans } = await exported();
    const [server] = spans;
    expect(server?.name).toBe("tools/call");
    for (const value of Object.values(server?.attributes ?? {})) {
      expect(String(value).length).toBeLessThanOrEqual(129);
      expect(String(value)).toMatch(printable);
    }
    expect(server?.attributes["jsonrpc.request.id"]).toMatch(/^id.9+…$/);
    // The log line names the tool as sent, bounded and sanitised, for whoever investigates.
    const tool = String(lines[0]?.tool);
    expect(tool.length).toBeLessThanOrEqual(129);
    expect(tool).toMatch(printable);
    expect(tool.startsWith("probe")).toBe(true);
    expect(JSON.stringify(lines[0]).length).toBeLessThan(1_000);
  });

  it("still names a tool its contract names", async () => {
    await exported();
    const lines = await decisionLines(() =>
      traceCall(start(), async () => {
        noteCall("get_ticket", "canonical");
        const body = { decision: "applied", call_id: "c-2" };
        return { status: 200, body, cache: null, replayed: false };
      }),
    );
    const { spans } = await exported();
    expect(spans[0]?.attributes["gen_ai.tool.name"]).toBe("get_ticket");
    expect(lines[0]?.tool).toBe("get_ticket");
  });
});
