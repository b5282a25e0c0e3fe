/**
 * `GET /openapi.json`: the REST API as OpenAPI 3.1, generated from the valibot schemas the
 * fence runs (each tool's input and output through the catalogue, the run limits' schema)
 * and from `shapes.ts` for the answers, with `@valibot/to-json-schema`. OpenAPI 3.1 schemas
 * are JSON Schema 2020-12, the catalogue's own draft, so nothing is translated by hand.
 */
import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type { OpenAPIObject, PathsObject, SchemaObject } from "openapi3-ts/oas31";
import type { GenericSchema } from "valibot";
import { KEY_PATTERN } from "../../core/body.ts";
import { catalogue } from "../../core/catalogue.ts";
import { LimitOverrideSchema } from "../../core/limits.ts";
import type { Fence } from "../../core/policy.ts";
import { DECISION_TABLE } from "../../core/reasons.ts";
import { DecisionSchema, ResolutionSchema } from "../approvals.ts";
import { PROBLEM_TYPE } from "../problem.ts";
import { ROUTES } from "./routes.ts";
import * as shapes from "./shapes.ts";

/** A valibot schema as a component: `$schema` belongs to a document's root, not a component. */
function component(schema: GenericSchema | JsonSchema): SchemaObject {
  const converted = "kind" in schema ? toJsonSchema(schema, { target: "draft-2020-12" }) : schema;
  const { $schema: _dialect, ...rest } = converted as JsonSchema & { $schema?: string };
  return rest as SchemaObject;
}

interface CatalogueEntry {
  name: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}

/** The canonical call body of each tool, and the two provider forms mapped onto it. */
function callBodies(entries: CatalogueEntry[]): Record<string, SchemaObject> {
  const canonical = entries.map((e) => ({
    type: "object" as const,
    title: e.name,
    properties: {
      tool: { const: e.name },
      args: { $ref: `#/components/schemas/${e.name}.input` },
      idempotency_key: { $ref: "#/components/schemas/IdempotencyKey" },
    },
    required: ["tool", "args"],
    additionalProperties: false,
  }));
  const openai: SchemaObject = {
    type: "object",
    title: "OpenAI tool call",
    properties: {
      type: { const: "function" },
      function: {
        type: "object",
        properties: { name: { type: "string" }, arguments: { type: "string" } },
        required: ["name", "arguments"],
      },
    },
    required: ["type", "function"],
  };
  const anthropic: SchemaObject = {
    type: "object",
    title: "Anthropic tool use",
    properties: {
      type: { const: "tool_use" },
      name: { type: "string" },
      input: { type: "object" },
    },
    required: ["type", "name", "input"],
  };
  return { CallBody: { anyOf: [...canonical, openai, anthropic] } };
}

function decisionTable(): string {
  const rows = Object.entries(DECISION_TABLE).map(
    ([reason, rule]) => `| \`${reason}\` | ${rule.status} | ${rule.decision} | ${rule.title} |`,
  );
  return ["| reason | status | decision | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

function schemas(fence: Fence): Record<string, SchemaObject> {
  const allowed = [...fence.tools.values()].filter((t) =>
    fence.policy.allowed_tools.includes(t.name),
  );
  const { tools } = catalogue(allowed, "json") as { tools: CatalogueEntry[] };
  const out: Record<string, SchemaObject> = {
    IdempotencyKey: { type: "string", pattern: KEY_PATTERN.source },
    LimitOverride: component(LimitOverrideSchema),
    ApprovalDecision: component(DecisionSchema),
    EscalationResolution: component(ResolutionSchema),
    ...callBodies(tools),
  };
  for (const [name, schema] of Object.entries(shapes)) out[name] = component(schema);
  for (const entry of tools) {
    out[`${entry.name}.input`] = component(entry.input_schema);
    out[`${entry.name}.output`] = component(entry.output_schema);
  }
  return out;
}

function paths(): PathsObject {
  const out: PathsObject = {};
  for (const route of ROUTES)
    out[route.path] = { ...out[route.path], [route.method]: route.operation };
  return out;
}

const documents = new WeakMap<Fence, OpenAPIObject>();

/** The OpenAPI document of the fence's API, built once per loaded fence. */
export function openApiDocument(fence: Fence): OpenAPIObject {
  const cached = documents.get(fence);
  if (cached !== undefined) return cached;
  const document: OpenAPIObject = {
    openapi: "3.1.1",
    info: {
      title: "toolfence",
      version: "1",
      description: `Every refusal is \`${PROBLEM_TYPE}\` (RFC 9457) with a \`decision\` and a \`reason\`:\n\n${decisionTable()}`,
    },
    security: [{ bearer: [] }],
    paths: paths(),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: schemas(fence),
      responses: {
        Problem: {
          description: "A refusal; `decision` says what to do next",
          content: { [PROBLEM_TYPE]: { schema: { $ref: "#/components/schemas/Problem" } } },
        },
      },
    },
    "x-decision-table": DECISION_TABLE,
  };
  documents.set(fence, document);
  return document;
}
