/**
 * The wire shapes of the approval routes' lists and of the audit keys, as valibot schemas for
 * the OpenAPI document (see `wire-schemas.ts` for why they are schemas). An approval itself
 * is defined in `src/core/shapes/approval.ts`.
 */
import * as v from "valibot";
import {
  ApprovalIndexEntrySchema,
  ApprovalSchema,
  ApprovalStatusSchema,
} from "../core/shapes/approval.ts";

const StatusFilter = v.picklist([...ApprovalStatusSchema.options, "all"]);

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

/** A signed audit head (`GET /v1/runs/{id}/audit/head`). */
export const SignedHeadSchema = v.strictObject({
  tenant: v.string(),
  run: v.string(),
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  hash: v.string(),
  at: v.string(),
  kid: v.string(),
  sig: v.pipe(v.string(), v.description("base64url Ed25519 over the RFC 8785 form of the claim")),
});

/** The run's archived audit segments (`GET /v1/runs/{id}/audit/segments`). */
export const AuditSegmentsSchema = v.strictObject({
  run_id: v.string(),
  segments: v.array(
    v.strictObject({
      first_seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
      last_seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
      head_hash: v.pipe(v.string(), v.description("The hash of the segment's last entry")),
      key: v.pipe(v.string(), v.description("The R2 key in the AUDIT_ARCHIVE bucket")),
      archived_at: v.string(),
      trimmed: v.pipe(
        v.number(),
        v.integer(),
        v.minValue(0),
        v.description("How many of its entries the run's own storage no longer holds"),
      ),
    }),
  ),
});

/** What recomputing a run's chain found (`GET /v1/runs/{id}/audit/verify`). */
export const ChainReportSchema = v.strictObject({
  ok: v.boolean(),
  entries: v.pipe(v.number(), v.integer(), v.minValue(0)),
  head: v.nullable(v.strictObject({ seq: v.number(), hash: v.string() })),
  first_bad_seq: v.optional(v.number()),
  problem: v.optional(v.string()),
});
