/**
 * The spans of proposed calls: one server span per call, child spans for each step, kept in
 * the isolate until the call's decision is known. The call's context rides in an
 * AsyncLocalStorage (nodejs_compat), so a step deep in the pipeline opens its child span
 * without the context being passed through every signature.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Attributes,
  type Context,
  createContextKey,
  defaultTextMapGetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { TelemetryConfig } from "./config.ts";
import { telemetrySdk } from "./load.ts";

/** W3C trace context as a client sent it: HTTP headers, or MCP `_meta` fields of the same names. */
export interface TraceCarrier {
  /** `traceparent` (W3C Trace Context §3.2). */
  traceparent?: string | undefined;
  /** `tracestate` (W3C Trace Context §3.3). */
  tracestate?: string | undefined;
}

/** The most spans one call keeps; past it, further steps are not recorded. */
export const MAX_SPANS_PER_CALL = 32;

/** Instrumentation scope of every span. */
export const SCOPE = "toolfence";

/**
 * The ended spans of one call, whether the call must be exported whatever the ratio, and the
 * tracer its steps open their spans with.
 */
export class CallSpans {
  readonly spans: ReadableSpan[] = [];
  keep = false;
  constructor(readonly tracer: Tracer) {}
}

export const CALL = createContextKey("toolfence.call");
const NOTES = createContextKey("toolfence.call.notes");

/** What the pipeline learns of a call as it goes, for its span, metrics and log line. */
export interface CallNotes {
  /** The tool's name, once the gate read it. */
  tool?: string;
  /** The call's body form (`canonical`, `openai`, `mcp`, ...). */
  form?: string;
}
const PROPAGATOR = new W3CTraceContextPropagator();
const active = new AsyncLocalStorage<Context>();

let instance: string | undefined;

/**
 * Random per isolate: each isolate's metrics are a series of their own (`service.instance.id`).
 * Drawn on first use: workerd refuses random values in the global scope.
 */
export function instanceId(): string {
  instance ??= crypto.randomUUID();
  return instance;
}

/** One call being traced: its server span and the context its steps run in. */
export interface CallTrace {
  /** The call's server span (non-recording when telemetry is off). */
  span: Span;
  /** The context the call's steps run in. */
  context: Context;
  /** What the call recorded, or null when telemetry is off. */
  spans: CallSpans | null;
  /** What the pipeline noted of the call. */
  notes: CallNotes;
}

/** The incoming W3C trace context, or the root context when none (or a malformed one) was sent. */
export function extractContext(carrier: TraceCarrier): Context {
  return PROPAGATOR.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/**
 * Start a call's server span as a child of the client's trace. With telemetry off (or its SDK
 * not loaded: src/telemetry/load.ts) no span is recorded, but the client's context still goes
 * on to the upstream.
 */
export function startCall(
  config: TelemetryConfig | null,
  carrier: TraceCarrier,
  name: string,
  attributes: Attributes,
): CallTrace {
  const notes: CallNotes = {};
  const parent = extractContext(carrier).setValue(NOTES, notes);
  const sdk = telemetrySdk();
  if (config === null || sdk === undefined) {
    const span = trace.getSpan(parent) ?? trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    return { span, context: parent, spans: null, notes };
  }
  const spans = new CallSpans(sdk.tracerOf(config));
  const withCall = parent.setValue(CALL, spans);
  const span = spans.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, withCall);
  return { span, context: trace.setSpan(withCall, span), spans, notes };
}

/** Run `work` with `call` as the active call, so its steps become the call's child spans. */
export function inCall<T>(call: CallTrace, work: () => Promise<T>): Promise<T> {
  return active.run(call.context, work);
}

/** The active call's context (the root context outside any call). */
export function activeContext(): Context {
  return active.getStore() ?? ROOT_CONTEXT;
}

/** Set attributes on the active call's innermost span. */
export function annotate(attributes: Attributes): void {
  trace.getSpan(activeContext())?.setAttributes(attributes);
}

/** Note what the pipeline learnt of the active call (outside a call, nothing). */
export function noteCall(tool: string | null, form: string | null): void {
  const notes = activeContext().getValue(NOTES) as CallNotes | undefined;
  if (notes === undefined) return;
  if (tool !== null) notes.tool = tool;
  if (form !== null) notes.form = form;
}

/** Export the active call's spans whatever the sampling ratio (a guardrail's finding). */
export function keepActiveCall(): void {
  const call = activeContext().getValue(CALL);
  if (call instanceof CallSpans) call.keep = true;
}

/**
 * Run `work` as a child span of the active call, ended when it settles; outside a traced call
 * it just runs. A thrown error marks the span and goes on.
 */
export async function inSpan<T>(
  name: string,
  work: () => Promise<T>,
  options: { kind?: SpanKind; attributes?: Attributes } = {},
): Promise<T> {
  const parent = activeContext();
  const call = parent.getValue(CALL);
  if (!(call instanceof CallSpans)) return work();
  const span = call.tracer.startSpan(name, options, parent);
  try {
    return await active.run(trace.setSpan(parent, span), work);
  } catch (e) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).name });
    throw e;
  } finally {
    span.end();
  }
}

/** Headers carrying the active context to an upstream (`traceparent`, `tracestate`). */
export function outgoingTrace(): Record<string, string> {
  const carrier: Record<string, string> = {};
  PROPAGATOR.inject(activeContext(), carrier, {
    set: (c, k, v) => {
      c[k] = v;
    },
  });
  return carrier;
}

/**
 * Whether a trace is in the sampled share `ratio`: its rightmost 56 bits, random per W3C
 * Trace Context Level 2 §3.2.2.6, below ratio × 2^56. Every isolate decides a trace alike.
 */
export function sampledIn(traceId: string, ratio: number): boolean {
  if (ratio >= 1) return true;
  if (ratio <= 0 || !/^[0-9a-f]{32}$/.test(traceId)) return false;
  return BigInt(`0x${traceId.slice(-14)}`) < BigInt(Math.floor(ratio * 2 ** 56));
}

/**
 * End a call's server span and answer the spans to export: all of them when `keep` (or a step
 * asked to keep the call), else those of a trace in the sampled share.
 */
export function endCall(call: CallTrace, keep: boolean, ratio: number): ReadableSpan[] {
  call.span.end();
  if (call.spans === null) return [];
  const { traceId } = call.span.spanContext();
  return keep || call.spans.keep || sampledIn(traceId, ratio) ? call.spans.spans : [];
}
