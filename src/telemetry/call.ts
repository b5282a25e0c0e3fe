/**
 * Tracing one proposed call around the pipeline: its server span with the GenAI and MCP
 * semantic conventions' attributes and the fence's own (`toolfence.*`), its counters, its one
 * decision log line, and the export after the answer. Never an argument value.
 */
import type { Attributes } from "@opentelemetry/api";
import { callerText, toolLabel, UNKNOWN_TOOL } from "./caller-text.ts";
import { type TelemetryVars, telemetryConfig } from "./config.ts";
import { type DecisionFacts, logDecision } from "./decision-log.ts";
import { enqueue, scheduleFlush } from "./exporter.ts";
import { count, instruments } from "./metrics.ts";
import { endCall, inCall, startCall, type TraceCarrier } from "./spans.ts";

/** What the edge knows of a call before the pipeline runs. */
export interface CallStart {
  /** The worker's variables (the OTEL_* settings). */
  vars: TelemetryVars;
  /** The client's W3C trace context (headers, or MCP `_meta`). */
  carrier: TraceCarrier;
  /** The JSON-RPC request of an MCP `tools/call`, or null for REST. */
  mcp: { method: string; requestId: string | number } | null;
  /** Tenant and run. */
  tenant: string;
  /** The run's id. */
  runId: string;
  /** The caller's key id (SHA-256 of the key), or `dev` for the local development key. */
  principal: string;
  /** Runs work after the answer (`waitUntil`). */
  defer: (work: Promise<unknown>) => void;
}

/** The parts of the pipeline's answer telemetry reads (src/http/decision.ts). */
export interface CallAnswer {
  /** HTTP status. */
  status: number;
  /** The answer's body: `decision`, `reason`, `budget`, `approval_id`, `call_id`. */
  body: Record<string, unknown>;
  /** How the cache answered, or null. */
  cache: string | null;
  /** Whether this is the stored answer of an earlier call with the same key. */
  replayed: boolean;
}

/** Decisions whose spans are sampled; every other is always exported. */
const SAMPLED = new Set(["applied", "cached", "replayed"]);

/** Refusals counted as an exhausted budget or cap. */
const EXHAUSTED = new Set([
  "budget_exhausted",
  "tool_cap_exhausted",
  "target_cap_exhausted",
  "run_cap_exhausted",
]);

/** Run the pipeline for one call inside its span; record, log and export once it answered. */
export async function traceCall<T extends CallAnswer>(
  start: CallStart,
  work: () => Promise<T>,
): Promise<T> {
  // The worker loaded the SDK, when telemetry is configured, before this request (worker.ts).
  const config = telemetryConfig(start.vars);
  const call = startCall(config, start.carrier, spanName(start), startAttributes(start));
  const began = Date.now();
  const answer = await inCall(call, work).catch((e: unknown) => {
    call.span.setStatus({ code: 2, message: (e as Error).name });
    if (config !== null) enqueue(config, endCall(call, true, config.sampleRatio));
    throw e;
  });
  const facts = factsOf(answer);
  const tool = toolLabel(call.notes.tool, facts.reason);
  call.span.setAttributes(spanFacts(facts, tool, call.notes.form));
  if (start.mcp !== null && tool !== null && tool !== UNKNOWN_TOOL) {
    call.span.updateName(`${start.mcp.method} ${tool}`);
  }
  if (answer.status >= 500) call.span.setStatus({ code: 2 });
  const { traceId } = call.span.spanContext();
  logDecision({
    ...facts,
    // The name as sent, for whoever investigates; bounded like every caller's text.
    tool: call.notes.tool === undefined ? null : callerText(call.notes.tool),
    form: call.notes.form ?? null,
    tenant: start.tenant,
    run_id: start.runId,
    principal: start.principal,
    duration_ms: Date.now() - began,
    trace_id: /^0+$/.test(traceId) ? null : traceId,
  });
  if (config === null) return answer;
  countCall(config, facts, tool);
  enqueue(config, endCall(call, !SAMPLED.has(facts.decision), config.sampleRatio));
  scheduleFlush(config, start.defer);
  return answer;
}

/** The span name: HTTP's `{method} {route}` (REST), MCP's `{mcp.method.name} {tool}` (MCP). */
function spanName(start: CallStart): string {
  return start.mcp === null ? "POST /v1/runs/{run_id}/calls" : start.mcp.method;
}

function startAttributes(start: CallStart): Attributes {
  const common: Attributes = {
    "gen_ai.operation.name": "execute_tool",
    "toolfence.run.id": start.runId,
    "toolfence.tenant": start.tenant,
    "toolfence.principal": start.principal,
  };
  if (start.mcp === null) {
    return { ...common, "http.request.method": "POST", "http.route": "/v1/runs/{run_id}/calls" };
  }
  return {
    ...common,
    "mcp.method.name": start.mcp.method,
    "jsonrpc.request.id": callerText(String(start.mcp.requestId)),
    "network.protocol.name": "http",
  };
}

function factsOf(answer: CallAnswer): DecisionFacts {
  const { body } = answer;
  const budget = body.budget as
    | { mutations?: { left?: number }; paid_calls?: { left?: number } }
    | undefined;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    decision:
      answer.replayed && answer.status === 200 ? "replayed" : (text(body.decision) ?? "unknown"),
    reason: text(body.reason),
    status: answer.status,
    call_id: text(body.call_id),
    cache: answer.cache,
    replayed: answer.replayed,
    approval_id: text(body.approval_id),
    mutations_left: budget?.mutations?.left ?? null,
    paid_calls_left: budget?.paid_calls?.left ?? null,
  };
}

function spanFacts(f: DecisionFacts, tool: string | null, form: string | undefined): Attributes {
  const attributes: Attributes = {
    "toolfence.decision": f.decision,
    "toolfence.idempotency.replayed": f.replayed,
    "http.response.status_code": f.status,
  };
  const optional: Record<string, string | number | null | undefined> = {
    "gen_ai.tool.name": tool,
    "gen_ai.tool.call.id": f.call_id,
    "toolfence.call.form": form,
    "toolfence.reason": f.reason,
    "toolfence.cache.tier": f.cache,
    "toolfence.approval.id": f.approval_id,
    "toolfence.budget.mutations_left": f.mutations_left,
    "toolfence.budget.paid_calls_left": f.paid_calls_left,
  };
  for (const [k, v] of Object.entries(optional))
    if (v !== null && v !== undefined) attributes[k] = v;
  return attributes;
}

function countCall(
  config: Parameters<typeof instruments>[0],
  f: DecisionFacts,
  tool: string | null,
) {
  const meters = instruments(config);
  const name = tool ?? UNKNOWN_TOOL;
  count(meters?.calls, {
    "gen_ai.tool.name": name,
    "toolfence.decision": f.decision,
    "toolfence.reason": f.reason ?? "none",
  });
  if (f.cache?.startsWith("hit-"))
    count(meters?.cacheHits, {
      "toolfence.cache.tier": f.cache.slice(4),
      "gen_ai.tool.name": name,
    });
  if (f.reason !== null && EXHAUSTED.has(f.reason))
    count(meters?.budgetExhausted, { "toolfence.reason": f.reason, "gen_ai.tool.name": name });
}
