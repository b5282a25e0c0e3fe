/**
 * The REST API's request bodies and the envelopes its pages are sent in, as valibot schemas.
 * The shapes inside them (budget, run, decision, approval, audit entry) are defined once in
 * `src/core/shapes/`. `src/http/openapi.ts` turns them into the OpenAPI document, and the
 * tests parse live answers with them, so the published description and what the routes send
 * cannot drift. Request bodies the fence enforces (the run's limits) are the enforcing schemas.
 */
import * as v from "valibot";
import { KEY_PATTERN } from "../core/body.ts";
import { EscalationSchema, NextAfter } from "../core/shapes/audit.ts";
import { Count } from "../core/shapes/scalars.ts";

const IdempotencyKey = v.pipe(
  v.string(),
  v.regex(KEY_PATTERN),
  v.description("One key per intent: 8-128 characters of [A-Za-z0-9._:~+/=-]."),
);
const Args = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description("The tool's arguments, checked against its contract."),
);

/** The canonical call body: `{tool, args, idempotency_key?}`. */
export const CanonicalCallSchema = v.pipe(
  v.strictObject({
    tool: v.pipe(v.string(), v.description("Exact tool name, as in the catalogue.")),
    args: Args,
    idempotency_key: v.optional(IdempotencyKey),
  }),
  v.title("CanonicalCall"),
);

/** An OpenAI tool call, as a model emits it; `arguments` is JSON text. */
export const OpenAiCallSchema = v.pipe(
  v.strictObject({
    type: v.literal("function"),
    id: v.optional(v.string()),
    function: v.strictObject({
      name: v.string(),
      arguments: v.pipe(v.string(), v.description("The arguments object as JSON text.")),
    }),
  }),
  v.title("OpenAiToolCall"),
);

/** An Anthropic `tool_use` block. */
export const AnthropicCallSchema = v.pipe(
  v.strictObject({
    type: v.literal("tool_use"),
    id: v.optional(v.string()),
    name: v.string(),
    input: Args,
  }),
  v.title("AnthropicToolUse"),
);

/** A page of the calls that need a human. */
export const EscalationsPageSchema = v.strictObject({
  run_id: v.string(),
  status: v.picklist(["open", "resolved", "all"]),
  escalations: v.array(EscalationSchema),
  next_after: NextAfter,
});

/** `GET /v1/tools` in its default (`json`) format; JSON Schemas are published as they are. */
export const CatalogueSchema = v.strictObject({
  tools: v.array(
    v.strictObject({
      name: v.string(),
      version: v.string(),
      description: v.string(),
      effect: v.picklist(["read", "mutate"]),
      paid: v.boolean(),
      timeout_ms: Count,
      cache_ttl_seconds: Count,
      input_schema: v.record(v.string(), v.unknown()),
      output_schema: v.record(v.string(), v.unknown()),
      drifted: v.optional(v.literal(true)),
    }),
  ),
  /** Tools the key may use that are left out: their upstream is not configured here. */
  unavailable: v.optional(v.array(v.strictObject({ name: v.string(), reason: v.string() }))),
});

/** `GET /healthz`. */
export const HealthSchema = v.strictObject({ ok: v.literal(true) });
