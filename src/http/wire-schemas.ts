/**
 * The REST API's wire shapes as valibot schemas: request bodies and the answers the routes
 * send. `src/http/openapi.ts` turns them into the OpenAPI document, and the tests parse live
 * answers with them, so the published description and what the routes send cannot drift.
 * The shapes mirror the interfaces in `src/ledger/protocol.ts` and the bodies `src/http`
 * builds; request bodies the fence enforces (the run's limits) are the enforcing schemas.
 */
import * as v from "valibot";
import { KEY_PATTERN } from "../core/body.ts";
import { DECISION_TABLE, type Reason } from "../core/reasons.ts";

/** Every reason of the decision table, in the table's order. */
export const REASONS = Object.keys(DECISION_TABLE) as Reason[];

/** Every decision the table tells an agent to take. */
export const VERDICTS = [...new Set(Object.values(DECISION_TABLE).map((r) => r.decision))];

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Timestamp = v.pipe(v.string(), v.isoTimestamp());
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

const CounterSchema = v.strictObject({ used: Count, limit: Count, left: Count });

/** The run's side-effect budget, published in every call answer. */
export const BudgetSchema = v.strictObject({ mutations: CounterSchema, paid_calls: CounterSchema });

/** A successful call: `{decision, result, call_id, budget, cache_key?}`. */
export const CallResultSchema = v.strictObject({
  decision: v.picklist(["applied", "cached", "replayed"]),
  result: v.pipe(v.unknown(), v.description("The tool's result, checked against its contract.")),
  call_id: v.pipe(v.string(), v.uuid()),
  budget: BudgetSchema,
  cache_key: v.optional(v.pipe(v.string(), v.description("Present for a cacheable read."))),
});

const ContractIssueSchema = v.strictObject({
  path: v.string(),
  message: v.string(),
  expected: v.nullable(v.string()),
  received: v.string(),
});

/** An RFC 9457 problem with the fence's `reason` and `decision` members. */
export const ProblemSchema = v.object({
  type: v.pipe(v.string(), v.startsWith("urn:toolfence:reason:")),
  title: v.string(),
  status: v.pipe(v.number(), v.integer()),
  detail: v.string(),
  decision: v.picklist(VERDICTS),
  reason: v.picklist(REASONS),
  issues: v.optional(v.array(ContractIssueSchema)),
  call_id: v.optional(v.pipe(v.string(), v.uuid())),
  budget: v.optional(BudgetSchema),
  field: v.optional(v.pipe(v.string(), v.description("The run limit that was refused."))),
  approval_id: v.optional(v.string()),
  expires_at: v.optional(Timestamp),
  rule: v.optional(v.pipe(v.string(), v.description("The policy rule that asks a person."))),
  retry_after_s: v.optional(Count),
});

const LimitsViewSchema = v.strictObject({
  allowed_tools: v.array(v.string()),
  max_mutations: Count,
  max_paid_calls: Count,
  deadline_ms: Count,
  tools: v.record(v.string(), v.strictObject({ max_calls_per_run: Count })),
});

/** A run's status (`RunView`): `GET`, `PUT` and halt answer with it. */
export const RunViewSchema = v.strictObject({
  run_id: v.string(),
  status: v.picklist(["open", "halted", "expired"]),
  created_at: Timestamp,
  deadline_at: Timestamp,
  halted_at: v.nullable(Timestamp),
  halt_reason: v.nullable(v.string()),
  budget: BudgetSchema,
  limits: LimitsViewSchema,
  tool_calls: v.record(v.string(), Count),
  decisions: v.record(v.string(), Count),
  refusals_counted: v.record(v.string(), Count),
});

/** The halt's answer: the run's status and the calls admitted before it, not yet settled. */
export const HaltViewSchema = v.strictObject({
  ...RunViewSchema.entries,
  in_flight: v.array(
    v.strictObject({
      call_id: v.string(),
      tool: v.nullable(v.string()),
      seq: Count,
      admitted_at: Timestamp,
    }),
  ),
});

const CacheStatus = v.picklist(["hit-memory", "hit-edge", "hit-kv", "miss", "bypass"]);
const AuditDecision = v.picklist([
  "applied",
  "replayed",
  "cached",
  "pending",
  "abandoned",
  "approval_requested",
  "needs_approval",
  "approved",
  "denied",
  "escalation_retry_allowed",
  "escalation_closed",
  "halted",
  ...VERDICTS,
]);

/** One audit entry, as published (one line of the NDJSON form). */
export const AuditEntrySchema = v.strictObject({
  seq: Count,
  call_id: v.string(),
  at: Timestamp,
  tool: v.nullable(v.string()),
  form: v.nullable(v.string()),
  decision: AuditDecision,
  reason: v.nullable(v.picklist(REASONS)),
  status: v.nullable(v.pipe(v.number(), v.integer())),
  idempotency_key: v.nullable(v.string()),
  fingerprint: v.nullable(v.string()),
  cache: v.nullable(CacheStatus),
  duration_ms: v.nullable(Count),
  budget_after: v.strictObject({ mutations: Count, paid_calls: Count }),
  content_type: v.nullable(v.string()),
  payload: v.string(),
  payload_truncated: v.boolean(),
  approval_id: v.nullable(v.string()),
  actor: v.nullable(v.string()),
  note: v.nullable(v.string()),
  resolves: v.nullable(Count),
  of: v.pipe(
    v.nullable(Count),
    v.description("For an outcome entry: the seq of the admitted call's entry it settles."),
  ),
  prev: v.pipe(v.string(), v.description("The previous entry's hash (docs/audit.md).")),
  hash: v.pipe(
    v.string(),
    v.description("SHA-256 hex of this entry's RFC 8785 form without `hash`."),
  ),
});

const NextAfter = v.pipe(
  v.nullable(Count),
  v.description("Pass as `after` for the next page; null on the last page."),
);

/** A page of the audit log. */
export const AuditPageSchema = v.strictObject({
  run_id: v.string(),
  entries: v.array(AuditEntrySchema),
  next_after: NextAfter,
});

/** An escalated call and how an operator resolved it (null while open). */
export const EscalationSchema = v.strictObject({
  ...AuditEntrySchema.entries,
  resolution: v.nullable(
    v.strictObject({
      resolution: v.picklist(["retry_allowed", "closed"]),
      note: v.nullable(v.string()),
      actor: v.string(),
      resolved_at: Timestamp,
    }),
  ),
});

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
