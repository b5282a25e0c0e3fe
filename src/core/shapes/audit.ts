/**
 * One audit entry as the API publishes it (a line of the NDJSON form), and an escalated call
 * with its resolution: the ledger's views, the OpenAPI components and the client's types are
 * inferred from these schemas.
 */
import * as v from "valibot";
import { REASONS, VERDICTS } from "./decision.ts";
import { Count, described, Timestamp } from "./scalars.ts";

/** How a result was served with respect to the cache (`X-Cache`). */
export const CacheStatusSchema = v.picklist(["hit-memory", "hit-edge", "hit-kv", "miss", "bypass"]);

/** How a result was served with respect to the cache (`X-Cache`). */
export type CacheStatus = v.InferOutput<typeof CacheStatusSchema>;

/**
 * Every decision an audit entry can carry; `pending` while the tool runs, `abandoned` when
 * its worker never settled it within its lease.
 */
export const AuditDecisionSchema = v.picklist([
  "applied",
  "replayed",
  "cached",
  "pending",
  "abandoned",
  "approval_requested",
  "approved",
  "approval_vote",
  "denied",
  "escalation_retry_allowed",
  "escalation_closed",
  "halted",
  "pin_accepted",
  ...VERDICTS,
]);

/** Every decision an audit entry can carry. */
export type AuditDecision = v.InferOutput<typeof AuditDecisionSchema>;

/** The OAuth grant a principal acted through. */
const Via = { client_id: v.optional(v.string()), grant_id: v.optional(v.string()) };

/**
 * Who the upstream saw when a call was made as the principal (src/connections/): the
 * connection whose token was sent and, when the token says so, the upstream's subject.
 */
export const UpstreamIdentitySchema = v.strictObject({
  resource: described(v.string(), "The upstream MCP server (its RFC 9728 resource)."),
  connection_id: described(v.string(), "The principal's connection whose token was sent."),
  subject: v.optional(described(v.string(), "The upstream's subject, as its token names it.")),
});

/** The upstream identity a call made as the principal used. */
const AsUpstream = { upstream_identity: v.optional(UpstreamIdentitySchema) };

/**
 * Who an entry's act is by: a key (by digest and label), a person signed in through an
 * identity provider, either through an OAuth grant (its client and grant), or the fence itself
 * for what it settles alone (src/core/principal.ts).
 */
export const PrincipalSchema = v.variant("kind", [
  v.strictObject({
    kind: v.literal("key"),
    key_id: v.nullable(v.string()),
    label: v.string(),
    ...Via,
    ...AsUpstream,
  }),
  v.strictObject({
    kind: v.literal("person"),
    iss: v.string(),
    sub: v.string(),
    email: v.optional(v.string()),
    email_verified: v.optional(v.literal(true)),
    name: v.optional(v.string()),
    ...Via,
    ...AsUpstream,
  }),
  v.strictObject({ kind: v.literal("fence") }),
]);

/**
 * What an upstream answered when the call failed or escalated because of it: its status and a
 * bounded, redacted excerpt of its text (src/core/upstream-excerpt.ts).
 */
export const UpstreamAnswerSchema = v.strictObject({
  status: described(
    v.nullable(v.pipe(v.number(), v.integer())),
    "The HTTP status the tool answered with; null when no answer came (a timeout, a lost connection).",
  ),
  rpc_error_code: v.optional(
    described(
      v.pipe(v.number(), v.integer()),
      "The JSON-RPC error code an MCP server answered with.",
    ),
  ),
  is_error: v.optional(
    described(v.literal(true), "Set when an MCP tool's result came back with `isError`."),
  ),
  excerpt: described(
    v.string(),
    "The answer's text, at most 2 KiB of UTF-8, cut on a character boundary, with the contract's sensitive fields and every secret or card number redacted.",
  ),
  bytes: described(Count, "The answer's full size in bytes, as read or as declared."),
  truncated: described(v.boolean(), "Whether `excerpt` is less than the whole answer."),
});

/** What an upstream answered when the call failed or escalated because of it. */
export type UpstreamAnswer = v.InferOutput<typeof UpstreamAnswerSchema>;

/** One audit entry, as published. */
export const AuditEntrySchema = v.strictObject({
  seq: described(Count, "Position in the run's log, strictly increasing."),
  call_id: v.string(),
  at: described(Timestamp, "When the call was received."),
  tool: v.nullable(v.string()),
  form: v.nullable(v.string()),
  decision: AuditDecisionSchema,
  reason: v.nullable(v.picklist(REASONS)),
  status: described(v.nullable(v.pipe(v.number(), v.integer())), "HTTP status of the answer."),
  idempotency_key: v.nullable(v.string()),
  fingerprint: described(
    v.nullable(v.string()),
    "SHA-256 of the canonical call, once it passed the gate.",
  ),
  cache: v.nullable(CacheStatusSchema),
  duration_ms: described(v.nullable(Count), "Wall-clock ms the call took, once settled."),
  budget_after: v.strictObject({ mutations: Count, paid_calls: Count }),
  content_type: v.nullable(v.string()),
  payload: described(v.string(), "The body as sent, capped."),
  payload_truncated: v.boolean(),
  approval_id: described(
    v.nullable(v.string()),
    "The approval this entry asks for, decides or uses.",
  ),
  actor: described(v.nullable(v.string()), "Who acted, for an operator's entry."),
  principal: v.optional(
    described(
      PrincipalSchema,
      "Who the entry's act is by: a key, a person (through an OAuth grant: its client_id and grant_id), or the fence; for a call made as the principal, the upstream identity it used. Covered by the hash; absent only on entries written before it was kept.",
    ),
  ),
  note: described(v.nullable(v.string()), "The operator's note."),
  upstream: v.optional(
    described(
      UpstreamAnswerSchema,
      "For an outcome the tool's answer (or its silence) decided, a retry or an escalation: what it answered. Covered by the hash; absent on other entries.",
    ),
  ),
  resolves: described(v.nullable(Count), "The escalation (its seq) this entry resolves."),
  of: described(
    v.nullable(Count),
    "For an outcome entry: the seq of the admitted call's entry it settles.",
  ),
  prev: described(v.string(), "The previous entry's hash (docs/audit.md)."),
  hash: described(v.string(), "SHA-256 hex of this entry's RFC 8785 form without `hash`."),
});

/** One audit entry, as published. */
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

/** Where the next page of a log starts. */
export const NextAfter = described(
  v.nullable(Count),
  "Pass as `after` for the next page; null on the last page.",
);

/** A page of the audit log. */
export const AuditPageSchema = v.strictObject({
  run_id: v.string(),
  entries: v.array(AuditEntrySchema),
  next_after: NextAfter,
});

/** A page of the audit log. */
export type AuditPage = v.InferOutput<typeof AuditPageSchema>;

/** How an operator closes an escalation: the same key may run again once, or never. */
export const ResolutionKindSchema = v.picklist(["retry_allowed", "closed"]);

/** How an operator closes an escalation: the same key may run again once, or never. */
export type ResolutionKind = v.InferOutput<typeof ResolutionKindSchema>;

/** An escalation's resolution, once an operator gave one. */
export const ResolutionViewSchema = v.strictObject({
  resolution: ResolutionKindSchema,
  note: v.nullable(v.string()),
  actor: v.string(),
  resolved_at: Timestamp,
});

/** An escalation's resolution, once an operator gave one. */
export type ResolutionView = v.InferOutput<typeof ResolutionViewSchema>;

/** An escalated call and how an operator resolved it (null while open). */
export const EscalationSchema = v.strictObject({
  ...AuditEntrySchema.entries,
  resolution: v.nullable(ResolutionViewSchema),
});

/** An escalated call and how an operator resolved it (null while open). */
export type Escalation = v.InferOutput<typeof EscalationSchema>;
