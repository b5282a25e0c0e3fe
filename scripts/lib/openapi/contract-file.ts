/**
 * Contract files from an OpenAPI 3.0 or 3.1 description: one tool per operation, its input
 * from the path and query parameters and the JSON request body, its output from the 2xx JSON
 * response. References are resolved by `@readme/openapi-parser`; a cycle stays a `$ref`, which
 * the schema translation refuses, so it is reported per operation, never widened.
 */

import { FENCE_NAME } from "../mcp/contract-file.ts";
import { literal } from "../mcp/literal.ts";
import { schemaCode, usesKeywordChecks } from "../mcp/schema-code.ts";

type Node = Record<string, unknown>;

/** An operation of the description, as the import reads it. */
export interface Operation {
  method: string;
  path: string;
  op: Node;
  /** Parameters of the path item, which every operation of it inherits (OpenAPI 3.1 §4.8.9). */
  shared: Node[];
}

/** How imported operations are named and reached. */
export interface OpenApiOptions {
  prefix: string;
  /** The specifier of `src/core/contract.ts` from the folder written to (importsFrom). */
  contractModule: string;
  /** The specifier of `contracts/json-schema.ts`, imported when a schema needs its checks. */
  jsonSchemaModule: string;
  /** The description's `servers`, for the upstream URL, unless `server` replaces them. */
  servers: unknown;
  server?: string;
  /** The description's `components.securitySchemes` and top-level `security`. */
  securitySchemes: Node;
  security: unknown;
}

export type RenderedOperation =
  | { ok: true; name: string; exportName: string; text: string }
  | { ok: false; name: string; problems: string[] };

/**
 * An `operationId` the import accepts: MCP's tool-name characters and `/`, which large
 * descriptions use for a namespace (GitHub's `repos/get`); 1 to 128 of them, else refused.
 */
const OPERATION_ID = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$/;

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

/** Methods an HTTP upstream may be called with (src/core/contract.ts). */
const CALLABLE = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/** OpenAPI keywords that describe a value without constraining it (OpenAPI 3.1 §4.8.24). */
const OPENAPI_ANNOTATIONS = ["example", "xml", "externalDocs"];

/** Keywords whose value is a schema or a list of schemas (JSON Schema 2020-12 §10). */
const SUBSCHEMAS = new Set([
  "items",
  "prefixItems",
  "additionalProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
]);

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/** Integer formats as the bounds valibot enforces (OpenAPI Format Registry). */
const INT_BOUNDS: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/**
 * `schema` in the JSON Schema the translation reads: OpenAPI's annotations dropped, integer
 * formats as bounds, `float`/`double` as plain numbers, 3.0's `nullable` as a null type.
 * Anything else (discriminators among them) is kept, so the translation refuses it.
 */
export function normalized(schema: unknown, seen = new Set<unknown>()): unknown {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return schema;
  if (Array.isArray(schema)) return schema.map((s) => normalized(s, seen));
  seen.add(schema);
  let out: Node = {};
  for (const [key, value] of Object.entries(schema as Node)) {
    // Specification extensions (`x-…`, OpenAPI 3.1 §4.9) are annotations too.
    if (OPENAPI_ANNOTATIONS.includes(key) || key.startsWith("x-")) continue;
    out[key] =
      SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null
        ? Object.fromEntries(
            Object.entries(value as Node).map(([k, v]) => [k, normalized(v, seen)]),
          )
        : SUBSCHEMAS.has(key)
          ? normalized(value, seen)
          : value;
  }
  seen.delete(schema);
  const bounds = typeof out.format === "string" ? INT_BOUNDS[out.format] : undefined;
  if (out.type === "integer" && bounds !== undefined) {
    delete out.format;
    out.minimum = Math.max(bounds[0], typeof out.minimum === "number" ? out.minimum : bounds[0]);
    out.maximum = Math.min(bounds[1], typeof out.maximum === "number" ? out.maximum : bounds[1]);
  }
  if (out.type === "number" && (out.format === "float" || out.format === "double")) {
    delete out.format;
  }
  if (Array.isArray(out.allOf)) out = composedObject(out) ?? out;
  if (Array.isArray(out.oneOf) && disjointTypes(out.oneOf)) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  if (out.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  if (out.nullable !== undefined) delete out.nullable;
  return out;
}

/** The keywords of an object schema an `allOf` of them is merged over. */
const COMPOSABLE = new Set(["type", "properties", "required", "title", "description"]);

/**
 * OpenAPI's composition of objects (`allOf` of object schemas, as in `Pet: allOf [NewPet,
 * {id}]`) as the one object it describes: the union of the branches' properties and required
 * keys. The import makes every object strict (no key it does not name), and under that rule
 * the union is exact; JSON Schema's `allOf` checks (lib/mcp/schema-code.ts) would apply each
 * branch to an object of no keys of its own, which a strict object refuses whole. Kept as it
 * is (so refused) when a branch has any other keyword or two branches name a key differently.
 */
function composedObject(schema: Node): Node | undefined {
  const { allOf, ...own } = schema;
  const branches = allOf as unknown[];
  const object = (b: unknown, typed: boolean): b is Node =>
    typeof b === "object" &&
    b !== null &&
    ((b as Node).type === "object" || (!typed && (b as Node).type === undefined)) &&
    Object.keys(b).every((k) => COMPOSABLE.has(k) || (!typed && k === "nullable"));
  // Each branch says it is an object; the schema around them need not, and may be nullable
  // (3.0), which applies to the composed object below.
  if (!object(own, false) || !branches.every((b) => object(b, true))) return undefined;
  const properties: Node = {};
  const required = new Set<string>();
  for (const b of [own, ...branches] as Node[]) {
    for (const [key, value] of Object.entries((b.properties ?? {}) as Node)) {
      if (key in properties && JSON.stringify(properties[key]) !== JSON.stringify(value)) {
        return undefined;
      }
      properties[key] = value;
    }
    for (const key of Array.isArray(b.required) ? (b.required as string[]) : []) required.add(key);
  }
  return { ...own, type: "object", properties, required: [...required] };
}

/**
 * Whether every branch of a `oneOf` names one `type` no other branch can also match (an integer
 * is a number too): then at most one branch matches any value, and `oneOf` is `anyOf`
 * (JSON Schema 2020-12 §10.2.1.3). Any other `oneOf` is kept, so the translation refuses it.
 */
function disjointTypes(branches: unknown[]): boolean {
  const types = branches.map((b) => (b as Node | null)?.type);
  if (!types.every((t) => typeof t === "string")) return false;
  const distinct = new Set(types.map((t) => (t === "integer" ? "number" : t)));
  return distinct.size === types.length;
}

/** Every operation of `doc.paths`, in document order. */
export function operationsOf(doc: Node): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Node>)) {
    const shared = Array.isArray(item.parameters) ? (item.parameters as Node[]) : [];
    for (const method of METHODS) {
      const op = item[method];
      if (typeof op === "object" && op !== null) out.push({ method, path, op: op as Node, shared });
    }
  }
  return out;
}

/** The operation's own name: its `operationId`, else its method and path. */
export function remoteName(o: Operation): string {
  return typeof o.op.operationId === "string" ? o.op.operationId : `${o.method} ${o.path}`;
}

/** The fence's name: the prefix, then the remote name in snake case (listPets → list_pets). */
export function operationName(prefix: string, remote: string): string {
  const snake = remote
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return `${prefix}${snake}`;
}

function camel(name: string): string {
  return name.replace(/_+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

/** Render one operation's contract file, or every reason it cannot be imported strictly. */
export function renderOperation(o: Operation, options: OpenApiOptions): RenderedOperation {
  const remote = remoteName(o);
  const name = operationName(options.prefix, remote);
  if (typeof o.op.operationId === "string" && !OPERATION_ID.test(remote)) {
    const problems = [`its operationId is not 1 to 128 of A-Z a-z 0-9 _ - . /: ${literal(remote)}`];
    return { ok: false, name: literal(remote), problems };
  }
  if (!FENCE_NAME.test(name)) {
    const problems = [`its name in the fence, ${literal(name)}, is not a letter then a-z 0-9 _`];
    return { ok: false, name: literal(remote), problems };
  }
  const method = o.method.toUpperCase();
  const problems: string[] = [];
  if (!CALLABLE.has(method)) problems.push(`${method} is not a method the fence calls upstream`);
  const url = serverUrl(
    options.server === undefined ? options.servers : [{ url: options.server }],
    problems,
  );
  const input = inputSchema(o, method, name, problems);
  const output = outputSchema(o.op, name, problems);
  const auth = authOf(o.op, options, problems);
  const inputCode = schemaCode(normalized(input), `${name}.input`);
  const outputCode = output === undefined ? null : schemaCode(normalized(output), `${name}.output`);
  if (!inputCode.ok) problems.push(...inputCode.problems);
  if (outputCode !== null && !outputCode.ok) problems.push(...outputCode.problems);
  if (problems.length > 0 || !inputCode.ok || outputCode === null || !outputCode.ok) {
    return { ok: false, name, problems };
  }
  const read = method === "GET" || o.op["x-safe"] === true;
  const summary = [o.op.summary, o.op.description].find((t) => typeof t === "string");
  const exportName = camel(name);
  // An object's `allOf` (and `if`/`then`/`else`) is a check of contracts/json-schema.ts.
  const checks = usesKeywordChecks(`${inputCode.code}\n${outputCode.code}`)
    ? `import { keywordCheck } from ${literal(options.jsonSchemaModule)};\n`
    : "";
  const text = `import * as v from "valibot";
import type { ToolContract } from ${literal(options.contractModule)};
${checks}
/**
 * An operation of an OpenAPI description, imported by \`npm run contracts -- import --openapi\`.
 * Review before committing: tighten strings (patterns, enums) and numbers (bounds) to what the
 * tool needs, and decide how long a read may be cached.
 */
export const ${exportName} = {
  name: ${literal(name)},
  version: "v1",
  description: ${literal(String(summary ?? remote).slice(0, 1000))},
  effect: ${literal(read ? "read" : "mutate")},
  paid: false,
  input: ${indent(inputCode.code, 2)},
  output: ${indent(outputCode.code, 2)},
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "http",
    method: ${literal(method)},
    url: ${literal(`${url}${o.path}`)},${authLine(auth)}
  },
} satisfies ToolContract;
`;
  return { ok: true, name, exportName, text };
}

/** The first server's URL with its variables' defaults; it must be absolute HTTPS. */
function serverUrl(servers: unknown, problems: string[]): string {
  const first = Array.isArray(servers) ? (servers[0] as Node | undefined) : undefined;
  if (typeof first?.url !== "string") {
    problems.push("the description names no server URL");
    return "";
  }
  const vars = (first.variables ?? {}) as Record<string, Node>;
  const url = first.url
    .replace(/\{([^}]+)\}/g, (_, v: string) => String(vars[v]?.default ?? `{${v}}`))
    .replace(/\/+$/, "");
  if (!/^https:\/\/[^/{}]+/.test(url)) {
    problems.push(`its server URL ${literal(url)} is not an absolute https:// URL`);
  }
  return url;
}

function inputSchema(o: Operation, method: string, name: string, problems: string[]): Node {
  const properties: Node = {};
  const required: string[] = [];
  // An operation's parameter overrides the path item's of the same name and place (§4.8.10).
  const byKey = new Map<string, Node>();
  for (const p of [...o.shared, ...((o.op.parameters ?? []) as Node[])]) {
    byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  }
  for (const p of byKey.values()) {
    const where = `${name}.parameters.${String(p.name)}`;
    if (p.in === "header" || p.in === "cookie") {
      problems.push(`${where}: a ${p.in} parameter cannot be sent by the fence`);
      continue;
    }
    if (p.in === "query" && method !== "GET") {
      problems.push(`${where}: a query parameter of a ${method} cannot be sent (the body is)`);
      continue;
    }
    if (p.schema === undefined) {
      problems.push(`${where}: a parameter without a schema cannot be enforced`);
      continue;
    }
    properties[String(p.name)] = { ...(p.schema as Node), description: p.description };
    if (p.required === true || p.in === "path") required.push(String(p.name));
  }
  const body = o.op.requestBody as Node | undefined;
  if (body !== undefined) {
    const schema = jsonSchemaOf(body.content);
    if (schema === undefined) {
      problems.push(`${name}.requestBody: no application/json body to check`);
    } else if (schema.type !== "object" || typeof schema.properties !== "object") {
      problems.push(`${name}.requestBody: a body that is not an object of named properties`);
    } else {
      for (const [key, value] of Object.entries(schema.properties as Node)) {
        if (key in properties) problems.push(`${name}.requestBody.${key}: also a parameter`);
        properties[key] = value;
      }
      const inBody = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      if (body.required === true) required.push(...inBody);
      else if (inBody.length > 0)
        problems.push(`${name}.requestBody: optional, with required keys`);
    }
  }
  for (const key of Object.keys(properties)) {
    if ((properties[key] as Node).description === undefined)
      delete (properties[key] as Node).description;
  }
  return { type: "object", properties, required, additionalProperties: false };
}

function outputSchema(op: Node, name: string, problems: string[]): Node | undefined {
  const responses = (op.responses ?? {}) as Record<string, Node>;
  const ok = Object.keys(responses)
    .filter((s) => /^2(\d\d|XX)$/.test(s))
    .sort();
  for (const status of ok) {
    const schema = jsonSchemaOf(responses[status]?.content);
    if (schema !== undefined) return schema;
  }
  problems.push(`${name}.responses: no 2xx application/json response to check the answer with`);
  return undefined;
}

function jsonSchemaOf(content: unknown): Node | undefined {
  const media = (content ?? {}) as Record<string, Node>;
  const type = Object.keys(media).find((t) => /^application\/([a-z.+-]*\+)?json\b/.test(t));
  return type === undefined ? undefined : (media[type]?.schema as Node | undefined);
}

type Auth = { header: string; secret: string; scheme?: string };

/** The credential of the operation's first security requirement, as a Worker secret's name. */
function authOf(op: Node, options: OpenApiOptions, problems: string[]): Auth | undefined {
  const requirements = (op.security ?? options.security ?? []) as Node[];
  if (requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) {
    return undefined;
  }
  const [schemeName] = Object.keys(requirements[0] ?? {});
  const scheme = options.securitySchemes[schemeName ?? ""] as Node | undefined;
  const secret = `${options.prefix}${schemeName ?? ""}`.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  if (scheme?.type === "apiKey" && scheme.in === "header" && typeof scheme.name === "string") {
    return { header: scheme.name, secret };
  }
  if (
    (scheme?.type === "http" && /^bearer$/i.test(String(scheme.scheme))) ||
    scheme?.type === "oauth2"
  ) {
    return { header: "Authorization", secret, scheme: "Bearer" };
  }
  problems.push(`security scheme ${literal(schemeName)} cannot be sent as one header`);
  return undefined;
}

function authLine(auth: Auth | undefined): string {
  if (auth === undefined) return "";
  const scheme = auth.scheme === undefined ? "" : `, scheme: ${literal(auth.scheme)}`;
  return `\n    auth: { header: ${literal(auth.header)}, secret: ${literal(auth.secret)}${scheme} },`;
}

function indent(code: string, spaces: number): string {
  return code.replaceAll("\n", `\n${" ".repeat(spaces)}`);
}
