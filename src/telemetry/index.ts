/**
 * The fence's telemetry, for the layers above: tracing a call, its steps and what goes to the
 * upstream, and the counters a step records.
 */
import type { Attributes } from "@opentelemetry/api";
import { SpanKind } from "@opentelemetry/api";
import { type TelemetryVars, telemetryConfig } from "./config.ts";
import { count, instruments } from "./metrics.ts";
import { annotate, inSpan, keepActiveCall } from "./spans.ts";

export { type ExpiredApproval, recordApprovalsExpired } from "./alarm.ts";
export { type CallAnswer, type CallStart, traceCall } from "./call.ts";
export { loadTelemetry } from "./load.ts";
export { recordApprovalDecided } from "./metrics.ts";
export { annotate, inSpan, noteCall, outgoingTrace, type TraceCarrier } from "./spans.ts";

/** A step that calls out of the fence (the upstream): a client span. */
export function inClientSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>) {
  return inSpan(name, work, { kind: SpanKind.CLIENT, attributes });
}

/** Record how long an upstream took (seconds), by tool and outcome. */
export function recordUpstream(vars: TelemetryVars, tool: string, outcome: string, ms: number) {
  instruments(telemetryConfig(vars))?.upstreamDuration.record(ms / 1000, {
    "gen_ai.tool.name": tool,
    "toolfence.upstream.outcome": outcome,
  });
  annotate({ "toolfence.upstream.outcome": outcome });
}

/** Count an approval requested for `tool`. */
export function recordApprovalRequested(vars: TelemetryVars, tool: string): void {
  count(instruments(telemetryConfig(vars))?.approvalsRequested, { "gen_ai.tool.name": tool });
}

/**
 * Count a guardrail finding and keep the active call's trace whatever the sampling ratio; the
 * finding is noted on the active span. Rule and action are names, never matched content.
 */
export function recordGuardrail(vars: TelemetryVars, rule: string, action: string): void {
  count(instruments(telemetryConfig(vars))?.guardrailFindings, {
    "toolfence.guardrail.rule": rule,
    "toolfence.guardrail.action": action,
  });
  annotate({ "toolfence.guardrail.rule": rule, "toolfence.guardrail.action": action });
  keepActiveCall();
}

/** The RunLedger methods a call's pipeline takes steps with, each a child span. */
const LEDGER_STEPS = new Set(["record", "propose", "settle", "withdraw"]);

/**
 * The run's ledger stub with each step a child span of the active call (`toolfence.ledger.*`),
 * taken in the worker around the Durable Object's RPC, never inside the object.
 */
export function tracedLedger<T extends object>(ledger: T): T {
  return new Proxy(ledger, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof name !== "string" || !LEDGER_STEPS.has(name) || typeof value !== "function") {
        return value;
      }
      // Reflect.apply calls the method itself: an RPC method's own `apply` would be an RPC.
      return (...args: unknown[]) =>
        inSpan(
          `toolfence.ledger.${name}`,
          () => Reflect.apply(value, target, args) as Promise<unknown>,
        );
    },
  });
}
