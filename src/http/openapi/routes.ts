/**
 * Every route of the REST API as OpenAPI operations. `buildApp` registers the same paths;
 * a test compares the two lists, so a route cannot be added without being described.
 */
import type { OperationObject, ParameterObject } from "openapi3-ts/oas31";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ "application/json": { schema: ref(name) } });

/** `4XX`/`5XX` problem answers, shared by every authenticated route. */
const PROBLEMS = {
  "4XX": { $ref: "#/components/responses/Problem" },
  "5XX": { $ref: "#/components/responses/Problem" },
};

const RUN_ID: ParameterObject = {
  name: "run_id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,64}$" },
};

const PAGE: ParameterObject[] = [
  { name: "after", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
  { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000 } },
];

const OPERATOR = "Needs an `operator` key.";

const STATUS: ParameterObject = { name: "status", in: "query", schema: { type: "string" } };

/** The MCP endpoint: the SDK's Streamable HTTP transport; see docs/mcp.md. */
function mcp(method: string): OperationObject {
  return {
    operationId: `mcp${method}`,
    summary: "The run as a remote MCP server (Streamable HTTP; JSON-RPC bodies, see docs/mcp.md)",
    parameters: [RUN_ID],
    responses: { "200": { description: "An MCP answer" }, ...PROBLEMS },
  };
}

/** One described route: method, OpenAPI path, operation. */
export interface RouteDoc {
  /** HTTP method, lower case. */
  method: "get" | "post" | "put" | "delete";
  /** The OpenAPI path template, e.g. `/v1/runs/{run_id}`. */
  path: string;
  /** The operation object. */
  operation: OperationObject;
}

export const ROUTES: readonly RouteDoc[] = [
  {
    method: "get",
    path: "/healthz",
    operation: {
      operationId: "health",
      summary: "Liveness",
      security: [],
      responses: { "200": { description: "Alive", content: json("Health") } },
    },
  },
  {
    method: "get",
    path: "/openapi.json",
    operation: {
      operationId: "openapi",
      summary: "This document",
      security: [],
      responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": {} } } },
    },
  },
  {
    method: "get",
    path: "/v1/tools",
    operation: {
      operationId: "listTools",
      summary: "The catalogue: every tool the key may call, with its JSON Schema",
      parameters: [
        {
          name: "format",
          in: "query",
          schema: { type: "string", enum: ["json", "openai", "anthropic"], default: "json" },
        },
      ],
      responses: {
        "200": { description: "The catalogue", content: json("Catalogue") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/calls",
    operation: {
      operationId: "proposeCall",
      summary: "Propose one tool call",
      parameters: [
        RUN_ID,
        { name: "Idempotency-Key", in: "header", schema: ref("IdempotencyKey") },
        { name: "Cache-Control", in: "header", schema: { type: "string", examples: ["no-cache"] } },
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: ref("CallBody") },
          "text/plain": {
            schema: { type: "string", description: "One JSON call, optionally in one code fence" },
          },
        },
      },
      responses: {
        "200": {
          description: "Applied, replayed (`Idempotent-Replayed: true`) or served from the cache",
          headers: {
            "X-Cache": {
              schema: { type: "string", enum: ["hit-edge", "hit-kv", "miss", "bypass"] },
            },
            "Idempotent-Replayed": { schema: { type: "string", const: "true" } },
          },
          content: json("CallSuccess"),
        },
        "202": {
          description: "`needs_approval`: a person must approve the call first; nothing ran",
          content: { "application/problem+json": { schema: ref("Problem") } },
        },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "put",
    path: "/v1/runs/{run_id}",
    operation: {
      operationId: "openRun",
      summary: "Open a run with limits tighter than the policy, or tighten an open run's",
      parameters: [RUN_ID],
      requestBody: { content: json("LimitOverride") },
      responses: {
        "200": { description: "Tightened", content: json("RunStatus") },
        "201": { description: "Opened", content: json("RunStatus") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}",
    operation: {
      operationId: "runStatus",
      summary: "Status, budget, limits and counts of a run",
      parameters: [RUN_ID],
      responses: { "200": { description: "The run", content: json("RunStatus") }, ...PROBLEMS },
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/audit",
    operation: {
      operationId: "runAudit",
      summary: "The run's audit log, oldest first",
      description: `${OPERATOR} NDJSON with \`Accept: application/x-ndjson\`; the next page is then a \`Link: rel="next"\` header.`,
      parameters: [RUN_ID, ...PAGE],
      responses: {
        "200": {
          description: "One page",
          content: {
            ...json("AuditPage"),
            "application/x-ndjson": { schema: { type: "string" } },
          },
        },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/escalations",
    operation: {
      operationId: "runEscalations",
      summary: "The calls that need a human",
      description: OPERATOR,
      parameters: [RUN_ID, STATUS, ...PAGE],
      responses: {
        "200": { description: "One page", content: json("EscalationPage") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/halt",
    operation: {
      operationId: "haltRun",
      summary: "The kill switch: every later call of the run is blocked",
      description: OPERATOR,
      parameters: [
        RUN_ID,
        { name: "reason", in: "query", schema: { type: "string", maxLength: 200 } },
      ],
      responses: {
        "200": { description: "The halted run", content: json("RunStatus") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "get",
    path: "/.well-known/toolfence-audit-keys",
    operation: {
      operationId: "auditKeys",
      summary: "JWKS of the Ed25519 keys that sign audit heads",
      security: [],
      responses: { "200": { description: "The keys", content: json("AuditKeys") } },
    },
  },
  { method: "post", path: "/v1/runs/{run_id}/mcp", operation: mcp("Post") },
  { method: "get", path: "/v1/runs/{run_id}/mcp", operation: mcp("Get") },
  { method: "delete", path: "/v1/runs/{run_id}/mcp", operation: mcp("Delete") },
  {
    method: "get",
    path: "/v1/approvals",
    operation: {
      operationId: "tenantApprovals",
      summary: "The tenant's approvals, pending by default",
      description: OPERATOR,
      parameters: [STATUS, PAGE[1] as ParameterObject],
      responses: {
        "200": { description: "Approvals", content: json("ApprovalList") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "get",
    path: "/v1/runs/{run_id}/approvals",
    operation: {
      operationId: "runApprovals",
      summary: "The run's approvals and what each grant binds",
      description: OPERATOR,
      parameters: [RUN_ID, STATUS],
      responses: {
        "200": { description: "Approvals", content: json("ApprovalList") },
        ...PROBLEMS,
      },
    },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/approvals/{approval_id}",
    operation: {
      operationId: "decideApproval",
      summary: "Approve or deny a held call",
      description: OPERATOR,
      parameters: [
        RUN_ID,
        { name: "approval_id", in: "path", required: true, schema: { type: "string" } },
      ],
      requestBody: { required: true, content: json("ApprovalDecision") },
      responses: { "200": { description: "The approval", content: json("Approval") }, ...PROBLEMS },
    },
  },
  {
    method: "post",
    path: "/v1/runs/{run_id}/escalations/{seq}",
    operation: {
      operationId: "resolveEscalation",
      summary: "Resolve an escalated call",
      description: OPERATOR,
      parameters: [
        RUN_ID,
        { name: "seq", in: "path", required: true, schema: { type: "integer" } },
      ],
      requestBody: { required: true, content: json("EscalationResolution") },
      responses: {
        "200": { description: "The escalation", content: json("Escalation") },
        ...PROBLEMS,
      },
    },
  },
];
