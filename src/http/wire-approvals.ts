/**
 * The wire shapes of the approval and escalation routes and of the audit keys, as valibot
 * schemas for the OpenAPI document (see `wire-schemas.ts` for why they are schemas).
 */
import * as v from "valibot";

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const Status = v.picklist(["pending", "approved", "denied", "consumed", "expired"]);
const StatusFilter = v.picklist(["pending", "approved", "denied", "consumed", "expired", "all"]);

/** An approval as the tenant's index lists it. */
const ApprovalIndexEntrySchema = v.strictObject({
  approval_id: v.string(),
  run_id: v.string(),
  tool: v.string(),
  rule: v.string(),
  status: Status,
  requested_at: Timestamp,
  expires_at: Timestamp,
});

/** An approval as operators read it, with what its grant binds. */
export const ApprovalSchema = v.strictObject({
  ...ApprovalIndexEntrySchema.entries,
  args: v.pipe(v.unknown(), v.description("The validated arguments the grant is bound to.")),
  fingerprint: v.string(),
  policy_version: v.string(),
  idempotency_key: v.nullable(v.string()),
  decided_at: v.nullable(Timestamp),
  decided_by: v.nullable(v.string()),
  note: v.nullable(v.string()),
  consumed_by_call: v.nullable(v.string()),
});

/** `GET /v1/approvals`. */
export const TenantApprovalsSchema = v.strictObject({
  tenant: v.string(),
  status: StatusFilter,
  approvals: v.array(ApprovalIndexEntrySchema),
});

/** `GET /v1/runs/{run_id}/approvals`. */
export const RunApprovalsSchema = v.strictObject({
  run_id: v.string(),
  status: StatusFilter,
  approvals: v.array(ApprovalSchema),
});

/** `GET /.well-known/toolfence-audit-keys`: the public Ed25519 keys of signed audit heads. */
export const AuditKeysSchema = v.strictObject({
  keys: v.array(
    v.strictObject({
      kty: v.literal("OKP"),
      crv: v.literal("Ed25519"),
      x: v.string(),
      kid: v.string(),
      use: v.optional(v.literal("sig")),
      alg: v.optional(v.literal("EdDSA")),
    }),
  ),
});
