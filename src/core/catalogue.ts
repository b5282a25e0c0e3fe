/**
 * The catalogue (`GET /v1/tools`): each contract's JSON Schema, generated from the valibot
 * schemas the gate runs, in the fence's own, OpenAI's and Anthropic's dialects.
 */
import { type ConversionConfig, type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type { ToolContract } from "./contract.ts";
import type { JsonLikeObject } from "./openai-args.ts";

/** Which dialect `GET /v1/tools` answers in. */
export type CatalogueFormat = "json" | "openai" | "anthropic";

/** JSON Schema draft of every published schema (Anthropic validates tool schemas against it). */
const TARGET = "draft-2020-12";

/**
 * Keywords OpenAI strict mode accepts besides the structural ones rebuilt below
 * (properties, required, additionalProperties, items, anyOf, $defs). Everything else is
 * dropped: `default`, `minLength`/`maxLength` (not in the supported list), `$schema`,
 * `examples`, `uniqueItems` and other composition or object keywords.
 */
const OPENAI_KEPT = new Set([
  "type",
  "title",
  "description",
  "enum",
  "const",
  "pattern",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "$ref",
]);

/** String formats OpenAI strict mode accepts; any other `format` is dropped. */
const OPENAI_FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

const catalogues = new WeakMap<readonly ToolContract[], Map<CatalogueFormat, unknown>>();
const schemas = new WeakMap<ToolContract, { input: JsonSchema; output: JsonSchema }>();

/**
 * The tool catalogue in one dialect, generated from the same valibot schemas the gate runs,
 * so what the model is told and what the fence enforces cannot drift. Built once per tool
 * list (by array identity) and format, then frozen: callers share one object.
 */
export function catalogue(tools: readonly ToolContract[], format: CatalogueFormat): unknown {
  let byFormat = catalogues.get(tools);
  if (byFormat === undefined) {
    byFormat = new Map();
    catalogues.set(tools, byFormat);
  }
  let built = byFormat.get(format);
  if (built === undefined) {
    built = deepFreeze(build(tools, format));
    byFormat.set(format, built);
  }
  return built;
}

function build(tools: readonly ToolContract[], format: CatalogueFormat): unknown {
  switch (format) {
    case "json":
      return { tools: tools.map(jsonEntry) };
    case "anthropic":
      return { tools: tools.map(anthropicEntry) };
    case "openai":
      return { tools: tools.map(openAiEntry) };
  }
}

function jsonEntry(contract: ToolContract): JsonLikeObject {
  const { input, output } = schemasOf(contract);
  return {
    name: contract.name,
    version: contract.version,
    description: contract.description,
    effect: contract.effect,
    paid: contract.paid,
    timeout_ms: contract.timeoutMs,
    cache_ttl_seconds: contract.cacheTtlSeconds,
    input_schema: input,
    output_schema: output,
  };
}

function anthropicEntry(contract: ToolContract): JsonLikeObject {
  const { $schema: _dialect, ...inputSchema } = schemasOf(contract).input;
  return { name: contract.name, description: contract.description, input_schema: inputSchema };
}

function openAiEntry(contract: ToolContract): JsonLikeObject {
  const root: JsonLikeObject = { ...schemasOf(contract).input };
  // Strict mode wants a plain object at the root, never a union.
  if (root.type !== "object") throw new Error(`${contract.name}: input must be an object schema`);
  const parameters = strictNode(root, contract.name);
  return {
    type: "function",
    function: { name: contract.name, description: contract.description, parameters, strict: true },
  };
}

/**
 * The mark of a check whose JSON Schema keywords its contract publishes with `v.metadata`
 * (contracts/json-schema.ts registers the same symbol): nothing more is published for it. Any
 * other check has no JSON Schema form, and the conversion fails on it.
 */
const LISTED_KEYWORDS = Symbol.for("toolfence.listed-keywords");

const CONVERSION: ConversionConfig = {
  target: TARGET,
  overrideAction: ({ valibotAction, jsonSchema }) =>
    LISTED_KEYWORDS in valibotAction ? jsonSchema : undefined,
};

function schemasOf(contract: ToolContract): { input: JsonSchema; output: JsonSchema } {
  let pair = schemas.get(contract);
  if (pair === undefined) {
    pair = {
      input: toJsonSchema(contract.input, { ...CONVERSION, typeMode: "input" }),
      output: toJsonSchema(contract.output, { ...CONVERSION, typeMode: "output" }),
    };
    schemas.set(contract, pair);
  }
  return pair;
}

/** One schema rewritten to OpenAI's strict subset; `where` names it in errors. */
function strictNode(node: unknown, where: string): JsonLikeObject {
  if (!isRecord(node)) throw new Error(`${where}: strict mode needs an object schema`);
  const out: JsonLikeObject = {};
  for (const [key, value] of Object.entries(node)) {
    const format = key === "format" && typeof value === "string" && OPENAI_FORMATS.has(value);
    if (OPENAI_KEPT.has(key) || format) out[key] = value;
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) throw new Error(`${where}: tuples have no strict-mode form`);
    out.items = strictNode(node.items, `${where}.items`);
  }
  if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((s) => strictNode(s, where));
  if (isRecord(node.$defs)) {
    const defs = Object.entries(node.$defs);
    out.$defs = Object.fromEntries(defs.map(([k, s]) => [k, strictNode(s, `${where}.$defs.${k}`)]));
  }
  if (node.type === "object") Object.assign(out, strictObject(node, where));
  const note = lostConstraints(node);
  if (note !== null) {
    out.description = typeof out.description === "string" ? `${out.description} (${note})` : note;
  }
  return out;
}

/** Every key listed in `required`, optional ones made nullable, no extra keys. */
function strictObject(node: JsonLikeObject, where: string): JsonLikeObject {
  if (isRecord(node.additionalProperties)) {
    throw new Error(`${where}: records and rest schemas have no strict-mode form`);
  }
  const properties = isRecord(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const out: JsonLikeObject = {};
  for (const [key, prop] of Object.entries(properties)) {
    const strict = strictNode(prop, `${where}.${key}`);
    out[key] = required.has(key) ? strict : orNull(strict);
  }
  return { properties: out, required: Object.keys(out), additionalProperties: false };
}

/** `schema` widened to accept null, strict mode's spelling of "optional". */
function orNull(schema: JsonLikeObject): JsonLikeObject {
  if (acceptsNull(schema)) return schema;
  const { type } = schema;
  // With `enum` or `const`, a widened `type` alone would still exclude null.
  if (typeof type === "string" && schema.enum === undefined && schema.const === undefined) {
    return { ...schema, type: [type, "null"] };
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const { description, ...rest } = schema;
  const union = { anyOf: [rest, { type: "null" }] };
  return description === undefined ? union : { description, ...union };
}

function acceptsNull(schema: JsonLikeObject): boolean {
  const { type, anyOf } = schema;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return Array.isArray(anyOf) && anyOf.some((s) => isRecord(s) && acceptsNull(s));
}

/** Dropped constraints worth telling the model in words; null if none or already said. */
function lostConstraints(node: JsonLikeObject): string | null {
  const said = typeof node.description === "string" ? node.description : "";
  const notes = lengthRules(node.minLength, node.maxLength, said);
  if (node.default !== undefined) notes.push(`default ${JSON.stringify(node.default)}`);
  return notes.length === 0 ? null : notes.join(", ");
}

/** minLength/maxLength in words, leaving out what the description already says. */
function lengthRules(min: unknown, max: unknown, said: string): string[] {
  if (said.includes(`${String(min)}-${String(max)} characters`)) return [];
  const rules: string[] = [];
  if (typeof min === "number" && min > 0) {
    rules.push(min === 1 ? "not empty" : `at least ${min} characters`);
  }
  if (typeof max === "number") rules.push(`at most ${max} characters`);
  return rules.filter((rule) => !said.includes(rule));
}

function isRecord(value: unknown): value is JsonLikeObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
