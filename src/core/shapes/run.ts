/**
 * A run as the API publishes it: its status (`GET`/`PUT /v1/runs/{id}`), its effective limits,
 * and what the kill switch answers. The ledger's views and the client's types are inferred
 * from these schemas, and the OpenAPI components generated from them.
 */
import * as v from "valibot";
import { BudgetSchema } from "./budget.ts";
import { Count, described, Timestamp } from "./scalars.ts";

/** A run's effective limits, in the shape `PUT /v1/runs/{id}` accepts them. */
export const LimitsViewSchema = v.strictObject({
  allowed_tools: described(v.array(v.string()), "Tools the run may call."),
  max_mutations: described(Count, "Most mutations the run may apply."),
  max_paid_calls: described(Count, "Most paid calls the run may make."),
  deadline_ms: described(Count, "How long after its creation the run admits calls."),
  tools: described(
    v.record(v.string(), v.strictObject({ max_calls_per_run: Count })),
    "Per-tool caps; a tool not listed is capped by the budget alone.",
  ),
});

/** A run's effective limits, in the shape `PUT /v1/runs/{id}` accepts them. */
export type LimitsView = v.InferOutput<typeof LimitsViewSchema>;

/** A run's status: `GET` and `PUT /v1/runs/{id}` answer with it. */
export const RunViewSchema = v.strictObject({
  run_id: v.string(),
  status: described(
    v.picklist(["open", "halted", "expired"]),
    "`halted` by the kill switch, `expired` once the deadline passed.",
  ),
  created_at: described(Timestamp, "When the run was first seen."),
  deadline_at: described(Timestamp, "When the run stops admitting calls."),
  halted_at: v.nullable(Timestamp),
  halt_reason: v.nullable(v.string()),
  budget: BudgetSchema,
  limits: described(
    LimitsViewSchema,
    "The run's effective limits: the policy's, tightened for its tenant and when opened.",
  ),
  tool_calls: described(
    v.record(v.string(), Count),
    "Calls charged per tool (a replay or a cache hit is not charged).",
  ),
  decisions: described(v.record(v.string(), Count), "How many audit entries carry each decision."),
  refusals_counted: described(
    v.record(v.string(), Count),
    "Refusals counted by reason, not appended, once the log held its entry cap (the first of each reason and tool is appended all the same).",
  ),
});

/** A run's status: `GET` and `PUT /v1/runs/{id}` answer with it. */
export type RunView = v.InferOutput<typeof RunViewSchema>;

/** A call admitted and not yet settled, as the halt's answer names it. */
export const InFlightCallSchema = v.strictObject({
  call_id: v.string(),
  tool: v.nullable(v.string()),
  seq: described(Count, "Seq of its pending audit entry."),
  admitted_at: Timestamp,
});

/** A call admitted and not yet settled, as the halt's answer names it. */
export type InFlightCall = v.InferOutput<typeof InFlightCallSchema>;

/** `POST /v1/runs/{id}/halt`: the run's status, and the calls still running when it was halted. */
export const HaltViewSchema = v.strictObject({
  ...RunViewSchema.entries,
  in_flight: described(
    v.array(InFlightCallSchema),
    "Calls admitted before the halt and not settled yet: their outcomes will be marked late.",
  ),
});

/** `POST /v1/runs/{id}/halt`: the run's status, and the calls still running when it was halted. */
export type HaltView = v.InferOutput<typeof HaltViewSchema>;
