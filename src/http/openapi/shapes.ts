/**
 * The REST API's answers as valibot schemas, for the OpenAPI document only: the routes build
 * these shapes in code (views.ts, problem.ts, calls.ts), and these schemas describe them. The
 * reason enum is the decision table's own keys, so a new reason is published by adding it.
 */
import * as v from "valibot";
import { DECISION_TABLE, type Reason, type Verdict } from "../../core/reasons.ts";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Instant = v.pipe(v.string(), v.isoTimestamp());

const Counter = v.object({ used: Count, limit: Count, left: Count });

export const Budget = v.object({ mutations: Counter, paid_calls: Counter });

export const ContractIssue = v.object({
  path: v.pipe(v.string(), v.description('Dotted path, "" for the payload itself')),
  message: v.string(),
  expected: v.nullable(v.string()),
  received: v.string(),
});

const REASONS = Object.keys(DECISION_TABLE) as [Reason, ...Reason[]];
const VERDICTS = [...new Set(Object.values(DECISION_TABLE).map((r) => r.decision))] as [
  Verdict,
  ...Verdict[],
];

/** RFC 9457 problem details with the fence's members. */
export const Problem = v.object({
  type: v.pipe(v.string(), v.description("urn:toolfence:reason:<reason>")),
  title: v.string(),
  status: v.pipe(v.number(), v.integer()),
  detail: v.string(),
  decision: v.picklist(VERDICTS),
  reason: v.picklist(REASONS),
  issues: v.optional(v.array(ContractIssue)),
  call_id: v.optional(v.string()),
  budget: v.optional(Budget),
  field: v.optional(v.pipe(v.string(), v.description("The refused field of a run's limits"))),
  approval_id: v.optional(
    v.pipe(v.string(), v.description("needs_approval: the request to decide")),
  ),
  expires_at: v.optional(v.pipe(Instant, v.description("needs_approval: when it lapses"))),
});

export const CallSuccess = v.object({
  decision: v.picklist(["applied", "replayed", "cached"]),
  result: v.pipe(v.unknown(), v.description("The tool's output, checked by its output contract")),
  call_id: v.string(),
  budget: Budget,
  cache_key: v.optional(v.pipe(v.string(), v.description("Result cache key of a cacheable read"))),
});

export const RunStatus = v.object({
  run_id: v.string(),
  status: v.picklist(["open", "halted", "expired"]),
  created_at: Instant,
  deadline_at: Instant,
  halted_at: v.nullable(Instant),
  halt_reason: v.nullable(v.string()),
  budget: Budget,
  limits: v.object({
    allowed_tools: v.array(v.string()),
    max_mutations: Count,
    max_paid_calls: Count,
    deadline_ms: Count,
    tools: v.record(v.string(), v.object({ max_calls_per_run: Count })),
  }),
  tool_calls: v.record(v.string(), Count),
  decisions: v.record(v.string(), Count),
});

export const AuditEntry = v.object({
  seq: Count,
  call_id: v.string(),
  at: Instant,
  tool: v.nullable(v.string()),
  form: v.nullable(v.string()),
  decision: v.string(),
  reason: v.nullable(v.string()),
  status: v.nullable(v.number()),
  idempotency_key: v.nullable(v.string()),
  fingerprint: v.nullable(v.string()),
  cache: v.nullable(v.string()),
  duration_ms: v.nullable(v.number()),
  budget_after: v.object({ mutations: Count, paid_calls: Count }),
  content_type: v.nullable(v.string()),
  payload: v.string(),
  payload_truncated: v.boolean(),
});

export const AuditPage = v.object({
  run_id: v.string(),
  entries: v.array(AuditEntry),
  next_after: v.nullable(Count),
});

export const EscalationPage = v.object({
  run_id: v.string(),
  escalations: v.array(AuditEntry),
  next_after: v.nullable(Count),
});

export const Catalogue = v.object({
  tools: v.array(v.looseObject({ name: v.string(), description: v.string() })),
});

export const Health = v.object({ ok: v.literal(true) });

/** Answers documented in [docs/approvals.md](../../../docs/approvals.md), members not fixed here. */
export const ApprovalList = v.looseObject({
  status: v.string(),
  approvals: v.array(v.looseObject({})),
});
export const Approval = v.looseObject({ approval_id: v.string(), status: v.string() });
export const Escalation = v.looseObject({ seq: Count });
export const AuditKeys = v.object({ keys: v.array(v.looseObject({ kty: v.string() })) });
