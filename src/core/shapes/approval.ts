/**
 * An approval as operators read it, and as the tenant's index lists it: the ledger's views,
 * the OpenAPI components and the tests take these shapes from here.
 */
import * as v from "valibot";
import { described, Timestamp } from "./scalars.ts";

/** Where an approval stands. */
export const ApprovalStatusSchema = v.picklist([
  "pending",
  "approved",
  "denied",
  "consumed",
  "expired",
]);

/** Where an approval stands. */
export type ApprovalStatus = v.InferOutput<typeof ApprovalStatusSchema>;

/** An approval as the tenant's index lists it. */
export const ApprovalIndexEntrySchema = v.strictObject({
  approval_id: v.string(),
  run_id: described(v.string(), "The run it belongs to."),
  tool: described(v.string(), "The tool the call would run."),
  rule: described(v.string(), "The policy rule that asked."),
  status: described(
    ApprovalStatusSchema,
    "Where it stands (a pending one past `expires_at` reads as expired).",
  ),
  requested_at: described(Timestamp, "When a call first asked."),
  expires_at: described(
    Timestamp,
    "When it stops admitting the call (the wait for an operator, then the grant's own).",
  ),
});

/** An approval as the tenant's index lists it. */
export type ApprovalIndexEntry = v.InferOutput<typeof ApprovalIndexEntrySchema>;

/** An approval as operators read it, with what its grant binds. */
export const ApprovalSchema = v.strictObject({
  ...ApprovalIndexEntrySchema.entries,
  args: described(v.unknown(), "The validated arguments the grant is bound to."),
  fingerprint: described(
    v.string(),
    "SHA-256 of the canonical call, sensitive arguments redacted: the grant admits only this payload.",
  ),
  policy_version: described(v.string(), "The policy version the grant is bound to."),
  idempotency_key: described(
    v.nullable(v.string()),
    "The call's idempotency key: the grant admits only a call with this key.",
  ),
  decided_at: v.nullable(Timestamp),
  decided_by: described(
    v.nullable(v.string()),
    "Who decided it: the operator key's id, or `development`.",
  ),
  note: described(v.nullable(v.string()), "The operator's note."),
  consumed_by_call: described(v.nullable(v.string()), "The call that used the grant."),
  edited_args: described(
    v.nullable(v.unknown()),
    "The arguments as an approver edited them (null: not edited); the grant then binds these, and `args` stays as proposed.",
  ),
  edited_fingerprint: described(
    v.nullable(v.string()),
    "The edited payload's fingerprint: the grant admits only this payload.",
  ),
  quorum: described(
    v.pipe(v.number(), v.integer(), v.minValue(1)),
    "How many distinct approvers must approve before the grant exists.",
  ),
  approvals: described(
    v.array(v.strictObject({ by: v.string(), at: Timestamp })),
    "The approvals given so far to the current arguments: who (as `decided_by` names them) and when.",
  ),
});

/** An approval as operators read it, with what its grant binds. */
export type Approval = v.InferOutput<typeof ApprovalSchema>;
