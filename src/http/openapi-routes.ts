/**
 * The route table of the OpenAPI document: each operation of `src/app.ts`, what it takes,
 * what it answers on success, and which reasons of the decision table it can refuse with.
 * Public, agent and MCP routes here; the operator's routes (audit, escalations, approvals,
 * halt) in openapi-operator-routes.ts, built from the pieces this file exports.
 */
import type { Reason } from "../core/reasons.ts";
import { header, json, query, ref } from "./openapi-components.ts";

export type Json = Record<string, unknown>;

/** One operation of the route table. */
export interface Route {
  /** Lower-case HTTP method. */
  method: "get" | "put" | "post" | "delete";
  /** OpenAPI path template. */
  path: string;
  /** Unique operation id. */
  id: string;
  /** One-line summary. */
  summary: string;
  /** Reasons the route can refuse with; none for a public route. */
  reasons: readonly Reason[];
  /** Whether a bearer key is needed. */
  auth: boolean;
  /** Extra parameters (the run id is added from the path). */
  params?: Json[];
  /** The request body, if any. */
  body?: Json;
  /** Success answers by status. */
  ok: Record<string, Json>;
}

/** Refusals every authenticated route can give, cheapest first (see src/app.ts). */
export const EDGE: readonly Reason[] = ["headers_too_large", "unauthenticated", "rate_limited"];
const RUN: readonly Reason[] = [...EDGE, "invalid_run_id"];
export const OPERATOR: readonly Reason[] = [...RUN, "forbidden_role"];
export const BODY: readonly Reason[] = [
  "unsupported_media_type",
  "payload_too_large",
  "malformed_payload",
];
const CALL: readonly Reason[] = [
  ...RUN,
  ...BODY,
  "unknown_tool",
  "contract_violation",
  "tool_not_allowed",
  "idempotency_key_missing",
  "idempotency_key_reused",
  "idempotency_key_in_use",
  "budget_exhausted",
  "tool_cap_exhausted",
  "target_cap_exhausted",
  "run_deadline_exceeded",
  "run_halted",
  "run_cap_exhausted",
  "approval_required",
  "approval_denied",
  "approval_expired",
  "approval_cap_exhausted",
  "upstream_timeout",
  "upstream_unavailable",
  "upstream_authz",
  "upstream_rejected",
  "upstream_not_configured",
  "upstream_authorization_required",
  "output_contract_violation",
];

export const PAGE = [
  query("after", "Return entries after this `seq`.", { type: "integer", minimum: 0 }),
  query("limit", "Entries per page (1-1000, default 100).", { type: "integer", minimum: 1 }),
];
export const APPROVAL_STATUS = query("status", "Which approvals.", {
  enum: ["pending", "approved", "denied", "consumed", "expired", "all"],
});
export const path = (name: string, description: string, schema: Json) => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
});
export const body = (schema: string, description: string) => ({
  required: true,
  description,
  content: { "application/json": { schema: ref(schema) } },
});
const CALL_HEADERS = { "X-Cache": header("X-Cache"), "Idempotent-Replayed": header("Replayed") };

export const ROUTES: readonly Route[] = [
  {
    method: "get",
    path: "/healthz",
    id: "health",
    summary: "Liveness",
    reasons: [],
    auth: false,
    ok: { 200: json(ref("Health"), "The worker is up.") },
  },
  {
    method: "get",
    path: "/openapi.json",
    id: "openapi",
    summary: "This document (public: it describes the API, it grants nothing)",
    reasons: [],
    auth: false,
    ok: { 200: json({ type: "object" }, "The OpenAPI 3.1 document.") },
  },
  {
    method: "get",
    path: "/.well-known/toolfence-audit-keys",
    id: "auditKeys",
    summary: "The public keys that sign audit heads (JWKS; public)",
    reasons: [],
    auth: false,
    ok: { 200: json(ref("AuditKeys"), "The current key and any retired ones.") },
  },
  {
    method: "get",
    path: "/v1/tools",
    id: "listTools",
    summary: "The tool catalogue the key may call",
    reasons: [...EDGE, "not_found"],
    auth: true,
    params: [
      query("format", "Dialect of the catalogue.", { enum: ["json", "openai", "anthropic"] }),
    ],
    ok: { 200: json(ref("Catalogue"), "The catalogue (shown in the `json` format).") },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/calls",
    id: "proposeCall",
    summary: "Propose one tool call",
    reasons: CALL,
    auth: true,
    params: [
      { $ref: "#/components/parameters/IdempotencyKey" },
      { $ref: "#/components/parameters/CacheControl" },
    ],
    body: {
      required: true,
      description: "The canonical call, or a model's OpenAI or Anthropic tool call as it is.",
      content: {
        "application/json": {
          schema: { oneOf: [ref("CanonicalCall"), ref("OpenAiToolCall"), ref("AnthropicToolUse")] },
        },
        "text/plain": {
          schema: {
            type: "string",
            description: "A model's text answer: one call's JSON, bare or in a markdown fence.",
          },
        },
      },
    },
    ok: {
      200: json(
        ref("CallResult"),
        "The call applied, was served from the cache, or was replayed.",
        CALL_HEADERS,
      ),
    },
  },
  {
    method: "put",
    path: "/v1/runs/{run_id}",
    id: "openRun",
    summary: "Open a run with tighter limits, or tighten an open run's",
    reasons: [...RUN, ...BODY, "forbidden_role", "override_loosens_policy", "run_cap_exhausted"],
    auth: true,
    body: {
      required: false,
      description: "Limits at most as loose as the policy's; an empty body keeps the policy's.",
      content: { "application/json": { schema: ref("LimitOverride") } },
    },
    ok: {
      200: json(ref("RunView"), "The open run's limits were tightened."),
      201: json(ref("RunView"), "The run was opened."),
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}",
    id: "runStatus",
    summary: "A run's status, budget and limits",
    reasons: [...RUN, "not_found"],
    auth: true,
    ok: { 200: json(ref("RunView"), "The run.") },
  },
  ...(["post", "get", "delete"] as const).map((method) => mcpRoute(method)),
];

function mcpRoute(method: "post" | "get" | "delete"): Route {
  return {
    method,
    path: "/v1/runs/{run_id}/mcp",
    id: `mcp${method[0]?.toUpperCase()}${method.slice(1)}`,
    summary: "The MCP Streamable HTTP endpoint of the run (JSON-RPC; see docs/mcp.md)",
    reasons: RUN,
    auth: true,
    ok: {
      200: {
        description: "A JSON-RPC answer, as JSON or as an event stream.",
        content: { "application/json": {}, "text/event-stream": {} },
      },
    },
  };
}
