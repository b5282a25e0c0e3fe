/**
 * The answer to one proposed call, as it goes on the wire: a result (`applied`, `replayed`,
 * `cached`), a refusal (RFC 9457 problem details whose `reason` and `decision` come from the
 * decision table), or a call held for a person (202). The edges, the client's types, the
 * OpenAPI components and the tests all take these shapes from here.
 */
import * as v from "valibot";
import { DECISION_TABLE, type Reason, type Verdict } from "../reasons.ts";
import { BudgetSchema } from "./budget.ts";
import { type ContractIssue, ContractIssueSchema } from "./issue.ts";

export { type ContractIssue, ContractIssueSchema };

import { Count, described, Timestamp } from "./scalars.ts";

/** Every reason of the decision table, in the table's order. */
export const REASONS = Object.keys(DECISION_TABLE) as Reason[];

/** Every decision the table tells an agent to take. */
export const VERDICTS = [...new Set(Object.values(DECISION_TABLE).map((r) => r.decision))];

/** The decisions of a refusal: the call did not apply and waits for nobody. */
const REFUSED = ["block", "retry", "escalate"] as const satisfies readonly Verdict[];

/** A call that ran, was replayed from its key, or was served from the cache. */
export const CallResultSchema = v.strictObject({
  decision: v.picklist(["applied", "cached", "replayed"]),
  result: described(v.unknown(), "The tool's result, checked against its contract."),
  call_id: described(v.pipe(v.string(), v.uuid()), "The call's id in the audit."),
  budget: described(BudgetSchema, "The run's budget after the call."),
  cache_key: v.optional(described(v.string(), "Present for a cacheable read.")),
});

/** A call that ran, was replayed from its key, or was served from the cache. */
export type CallResult = v.InferOutput<typeof CallResultSchema>;

/** An RFC 9457 problem with the fence's `reason` and `decision` members. */
export const ProblemSchema = v.object({
  type: described(v.pipe(v.string(), v.startsWith("urn:toolfence:reason:")), "The reason's URN."),
  title: v.string(),
  status: v.pipe(v.number(), v.integer()),
  detail: v.string(),
  decision: described(v.picklist(VERDICTS), "What to do next."),
  reason: described(v.picklist(REASONS), "The stable reason code (the decision table)."),
  issues: v.optional(v.array(ContractIssueSchema)),
  call_id: v.optional(v.pipe(v.string(), v.uuid())),
  budget: v.optional(BudgetSchema),
  field: v.optional(described(v.string(), "The run limit that was refused.")),
  approval_id: v.optional(v.string()),
  expires_at: v.optional(Timestamp),
  rule: v.optional(described(v.string(), "The policy rule that asks a person.")),
  retry_after_s: v.optional(Count),
  connect_url: v.optional(
    described(
      v.pipe(v.string(), v.url()),
      "For `upstream_authorization_required`: the fence's page where the caller connects the upstream, single use, valid ten minutes.",
    ),
  ),
});

/** An RFC 9457 problem with the fence's `reason` and `decision` members. */
export type Problem = v.InferOutput<typeof ProblemSchema>;

/** A refused call: `block` (do not retry), `retry` (same call, same key, later), `escalate`. */
export const RefusedSchema = v.object({ ...ProblemSchema.entries, decision: v.picklist(REFUSED) });

/** A refused call: `block` (do not retry), `retry` (same call, same key, later), `escalate`. */
export type Refused = v.InferOutput<typeof RefusedSchema>;

/** A call held for a person (202): not run, not charged; propose it again once approved. */
export const PendingSchema = v.object({
  ...ProblemSchema.entries,
  decision: v.literal("needs_approval"),
  reason: v.literal("approval_required"),
  approval_id: described(v.string(), "The approval to wait for."),
  expires_at: described(Timestamp, "When the approval lapses unless decided."),
  rule: described(v.string(), "The policy rule that asks a person."),
  retry_after_s: described(Count, "Seconds to wait before proposing the call again."),
  call_id: v.pipe(v.string(), v.uuid()),
  budget: described(BudgetSchema, "The run's budget (nothing was charged)."),
});

/** A call held for a person (202): not run, not charged; propose it again once approved. */
export type Pending = v.InferOutput<typeof PendingSchema>;
