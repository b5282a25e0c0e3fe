/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of the REST API, assembled from the route
 * tables (`openapi-routes.ts`, `openapi-operator-routes.ts`) and the components (`openapi-components.ts`). Problem answers
 * are listed per status with the statuses and enums the decision table itself gives.
 */
import { DECISION_TABLE, type Reason } from "../core/reasons.ts";
import { components, header, ref } from "./openapi-components.ts";
import { CONNECTION_PATHS } from "./openapi-connection-routes.ts";
import { OAUTH_PATHS } from "./openapi-oauth-routes.ts";
import { OPERATOR_ROUTES } from "./openapi-operator-routes.ts";
import { ROUTES, type Route } from "./openapi-routes.ts";
import { PROBLEM_TYPE } from "./problem.ts";

type Json = Record<string, unknown>;

/** The problem answers of a route: one per status, narrowed to the reasons it can give. */
function problems(reasons: readonly Reason[]): Record<string, Json> {
  const byStatus = new Map<number, Reason[]>();
  for (const reason of [...reasons, "not_found", "internal_error"] as Reason[]) {
    const status = DECISION_TABLE[reason].status;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(reason)) list.push(reason);
    byStatus.set(status, list);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    // A call waiting for a person is accepted (202), so its problem shape is sent as JSON.
    const shape = status < 400 ? ref("Pending") : ref("Problem");
    const narrowed = { allOf: [shape, { properties: { reason: { enum: list } } }] };
    const media = status < 400 ? "application/json" : PROBLEM_TYPE;
    const headers: Json = {};
    if (status === 202 || status === 429) headers["Retry-After"] = header("Retry-After");
    if (status === 401) headers["WWW-Authenticate"] = header("WWW-Authenticate");
    out[status] = {
      description: list.join(", "),
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: { [media]: { schema: narrowed } },
    };
  }
  return out;
}

function operation(route: Route): Json {
  const runParam = route.path.includes("{run_id}")
    ? [{ $ref: "#/components/parameters/RunId" }]
    : [];
  const params = [...runParam, ...(route.params ?? [])];
  return {
    operationId: route.id,
    summary: route.summary,
    ...(params.length === 0 ? {} : { parameters: params }),
    ...(route.body === undefined ? {} : { requestBody: route.body }),
    security: route.auth ? [{ bearer: [] }] : [],
    responses: { ...route.ok, ...problems(route.reasons) },
  };
}

function build(): Json {
  const paths: Record<string, Json> = {};
  for (const route of [...ROUTES, ...OPERATOR_ROUTES]) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return {
    openapi: "3.1.1",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "toolfence",
      version: "1",
      description:
        "The fence between AI agents and their tools. Refusals are RFC 9457 problems whose " +
        "`reason` and `decision` come from the decision table (docs/api.md).",
    },
    security: [{ bearer: [] }],
    paths: { ...paths, ...OAUTH_PATHS, ...CONNECTION_PATHS },
    components: components(),
  };
}

let document: string | null = null;

/** `GET /openapi.json`, built on its first request and kept for the isolate's life. */
export function openApiDocument(): Response {
  document ??= JSON.stringify(build());
  return new Response(document, { headers: { "Content-Type": "application/json" } });
}
