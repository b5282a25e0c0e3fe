/**
 * The reusable parts of the OpenAPI document: the bearer scheme, the shared parameters and
 * headers, and every wire schema converted to JSON Schema 2020-12 (the dialect of OpenAPI
 * 3.1) from the valibot schemas: the shapes of `src/core/shapes/`, the request bodies and
 * pages of `wire-schemas.ts` and `wire-approvals.ts`, and the enforcing `LimitOverrideSchema`.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { LimitOverrideSchema } from "../core/limits.ts";
import { ApprovalSchema } from "../core/shapes/approval.ts";
import {
  AuditEntrySchema,
  AuditPageSchema,
  CacheStatusSchema,
  EscalationSchema,
} from "../core/shapes/audit.ts";
import { CallResultSchema, PendingSchema, ProblemSchema } from "../core/shapes/decision.ts";
import { HaltViewSchema, RunViewSchema } from "../core/shapes/run.ts";
import { DecisionSchema, ResolutionSchema } from "./approvals.ts";
import { RUN_ID } from "./runs.ts";
import * as approvals from "./wire-approvals.ts";
import * as wire from "./wire-schemas.ts";

type Json = Record<string, unknown>;

/** A reference to a component schema. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A reference to a component header. */
export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
/** A JSON response. */
export const json = (schema: Json, description: string, headers?: Json) => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { "application/json": { schema } },
});
/** An optional query parameter. */
export const query = (name: string, description: string, schema: Json) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
/** JSON Schema 2020-12 of a wire schema, without its `$schema` (the document sets the dialect). */
function schemaOf(schema: v.GenericSchema): Json {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: "draft-2020-12" });
  return rest;
}

/** `components` of the document: everything `#/components/...` references point at. */
export function components(): Json {
  const text = (description: string, schema: Json = { type: "string" }) => ({
    description,
    schema,
  });
  return {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer", description: "A key from `npm run keys`." },
      consoleSession: {
        type: "apiKey",
        in: "cookie",
        name: "tf_console",
        description:
          "The console's session (docs/console.md): signed in with an operator key or through the deployment's OpenID provider, or let in by Cloudflare Access.",
      },
      oauth: {
        type: "oauth2",
        description: "OAuth 2.1 for MCP hosts at /mcp (docs/connectors.md).",
        flows: {
          authorizationCode: {
            authorizationUrl: "/console/connect",
            tokenUrl: "/oauth/token",
            refreshUrl: "/oauth/token",
            scopes: { tools: "Call the granted tools within the grant's budget." },
          },
        },
      },
    },
    parameters: {
      RunId: {
        name: "run_id",
        in: "path",
        required: true,
        description: "The run: every call of one agent task.",
        schema: { type: "string", pattern: RUN_ID.source },
      },
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "One key per intent; needed by mutations (or `idempotency_key` in the body).",
        schema: schemaOf(wire.CanonicalCallSchema.entries.idempotency_key.wrapped),
      },
      CacheControl: {
        name: "Cache-Control",
        in: "header",
        required: false,
        description: "`no-cache` makes a cacheable read bypass the cache.",
        schema: { type: "string" },
      },
    },
    headers: {
      "X-Cache": text("How a read was served.", schemaOf(CacheStatusSchema)),
      Replayed: text("`true` when the answer is the stored answer of the same key.", {
        const: "true",
      }),
      "Retry-After": text("Seconds to wait before retrying.", { type: "integer", minimum: 0 }),
      "WWW-Authenticate": text("The bearer challenge (RFC 6750 §3)."),
      Link: text('The next page, `rel="next"` (RFC 8288).'),
    },
    schemas: {
      CanonicalCall: schemaOf(wire.CanonicalCallSchema),
      OpenAiToolCall: schemaOf(wire.OpenAiCallSchema),
      AnthropicToolUse: schemaOf(wire.AnthropicCallSchema),
      LimitOverride: schemaOf(LimitOverrideSchema),
      CallResult: schemaOf(CallResultSchema),
      RunView: schemaOf(RunViewSchema),
      HaltView: schemaOf(HaltViewSchema),
      AuditEntry: schemaOf(AuditEntrySchema),
      AuditPage: schemaOf(AuditPageSchema),
      EscalationsPage: schemaOf(wire.EscalationsPageSchema),
      Catalogue: schemaOf(wire.CatalogueSchema),
      Health: schemaOf(wire.HealthSchema),
      Problem: schemaOf(ProblemSchema),
      Pending: schemaOf(PendingSchema),
      Escalation: schemaOf(EscalationSchema),
      Resolution: schemaOf(ResolutionSchema),
      Decision: schemaOf(DecisionSchema),
      Approval: schemaOf(ApprovalSchema),
      TenantApprovals: schemaOf(approvals.TenantApprovalsSchema),
      RunApprovals: schemaOf(approvals.RunApprovalsSchema),
      AuditKeys: schemaOf(approvals.AuditKeysSchema),
      SignedHead: schemaOf(approvals.SignedHeadSchema),
      ChainReport: schemaOf(approvals.ChainReportSchema),
      AuditSegments: schemaOf(approvals.AuditSegmentsSchema),
    },
  };
}
