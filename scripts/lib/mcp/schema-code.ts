/**
 * JSON Schema (as MCP servers list it) to valibot source code a person can read and tighten.
 * Only constructs valibot can enforce exactly are translated; anything else is refused with
 * the path of the offending node, never loosened to `v.unknown()`.
 */

import { keyLiteral, literal } from "./literal.ts";

/** The valibot expression, or every construct that could not be expressed strictly. */
export type SchemaCode = { ok: true; code: string } | { ok: false; problems: string[] };

/** Keywords that describe a value without constraining it. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/** Composition keywords with no exact valibot form (references are not resolved). */
const COMPOSITION = ["$ref", "allOf", "oneOf", "not", "if", "$dynamicRef"];

/** String formats with an exact valibot action. */
const FORMATS: Record<string, string> = {
  email: "v.email()",
  uri: "v.url()",
  uuid: "v.uuid()",
  "date-time": "v.isoTimestamp()",
  date: "v.isoDate()",
  ipv4: "v.ipv4()",
  ipv6: "v.ipv6()",
};

/** Keywords each type understands besides the annotations. */
const KNOWN: Record<string, readonly string[]> = {
  string: ["type", "minLength", "maxLength", "pattern", "format", "enum", "const"],
  number: ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  boolean: ["type", "const"],
  null: ["type"],
  array: ["type", "items", "minItems", "maxItems"],
  object: ["type", "properties", "required", "additionalProperties"],
};

/** Keys valibot never reads from an object (against prototype pollution), so never enforces. */
const UNREAD_KEYS = new Set(["__proto__", "prototype", "constructor"]);

type Node = Record<string, unknown>;

/** Translate `schema`; `where` names it in problems (e.g. `echo.input`). */
export function schemaCode(schema: unknown, where: string): SchemaCode {
  const problems: string[] = [];
  const code = node(schema, where, problems, "");
  return problems.length === 0 ? { ok: true, code } : { ok: false, problems };
}

function node(schema: unknown, path: string, problems: string[], indent: string): string {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    problems.push(
      `${path}: a schema that is not an object (${JSON.stringify(schema)}) accepts anything`,
    );
    return "";
  }
  const s = schema as Node;
  const base = shape(s, path, problems, indent);
  if (typeof s.description !== "string") return base;
  const description = `v.description(${literal(s.description)})`;
  // One pipe, not a pipe in a pipe: a pipe's call spans the whole expression.
  return base.startsWith("v.pipe(")
    ? `${base.slice(0, -1)}, ${description})`
    : withPipe(base, [description]);
}

function shape(s: Node, path: string, problems: string[], indent: string): string {
  if (Array.isArray(s.enum)) return enumCode(s, path, problems);
  if ("const" in s) return `v.literal(${literal(s.const)})`;
  if (Array.isArray(s.anyOf)) {
    const branches = s.anyOf.map((b, i) => node(b, `${path}.anyOf[${i}]`, problems, indent));
    return `v.union([${branches.join(", ")}])`;
  }
  const composed = COMPOSITION.find((key) => key in s);
  if (composed !== undefined) {
    problems.push(`${path}: "${composed}" cannot be enforced exactly`);
    return "";
  }
  const type = s.type;
  if (Array.isArray(type) && type.length === 2 && type.includes("null")) {
    const other = type.find((t) => t !== "null");
    return `v.nullable(${shape({ ...s, type: other }, path, problems, indent)})`;
  }
  if (typeof type !== "string" || KNOWN[type] === undefined) {
    problems.push(
      `${path}: no single known "type" (${JSON.stringify(type)}): it would accept any value`,
    );
    return "";
  }
  const known = new Set(KNOWN[type]);
  for (const key of Object.keys(s)) {
    if (!known.has(key) && !ANNOTATIONS.has(key)) {
      problems.push(`${path}: "${key}" on a ${type} cannot be enforced exactly`);
    }
  }
  switch (type) {
    case "string":
      return stringCode(s, path, problems);
    case "number":
    case "integer":
      return numberCode(s, type);
    case "boolean":
      return "v.boolean()";
    case "null":
      return "v.null()";
    case "array":
      return arrayCode(s, path, problems, indent);
    default:
      return objectCode(s, path, problems, indent);
  }
}

function enumCode(s: Node, path: string, problems: string[]): string {
  const values = s.enum as unknown[];
  if (values.length > 0 && values.every((x) => typeof x === "string")) {
    return `v.picklist(${literal(values)})`;
  }
  if (values.every((x) => x === null || ["string", "number", "boolean"].includes(typeof x))) {
    return `v.union([${values.map((x) => `v.literal(${literal(x)})`).join(", ")}])`;
  }
  problems.push(`${path}: an enum of objects or arrays cannot be enforced exactly`);
  return "";
}

function stringCode(s: Node, path: string, problems: string[]): string {
  const actions: string[] = [];
  if (typeof s.minLength === "number") actions.push(`v.minLength(${literal(s.minLength)})`);
  if (typeof s.maxLength === "number") actions.push(`v.maxLength(${literal(s.maxLength)})`);
  if (typeof s.pattern === "string") actions.push(`v.regex(new RegExp(${literal(s.pattern)}))`);
  if (typeof s.format === "string") {
    const action = FORMATS[s.format];
    if (action === undefined) problems.push(`${path}: format "${s.format}" has no exact check`);
    else actions.push(action);
  }
  return withPipe("v.string()", actions);
}

function numberCode(s: Node, type: string): string {
  const actions = type === "integer" ? ["v.integer()"] : [];
  if (typeof s.minimum === "number") actions.push(`v.minValue(${literal(s.minimum)})`);
  if (typeof s.maximum === "number") actions.push(`v.maxValue(${literal(s.maximum)})`);
  if (typeof s.exclusiveMinimum === "number")
    actions.push(`v.gtValue(${literal(s.exclusiveMinimum)})`);
  if (typeof s.exclusiveMaximum === "number")
    actions.push(`v.ltValue(${literal(s.exclusiveMaximum)})`);
  if (typeof s.multipleOf === "number") actions.push(`v.multipleOf(${literal(s.multipleOf)})`);
  return withPipe("v.number()", actions);
}

function arrayCode(s: Node, path: string, problems: string[], indent: string): string {
  if (s.items === undefined || Array.isArray(s.items)) {
    problems.push(`${path}: an array needs one "items" schema`);
    return "";
  }
  const actions: string[] = [];
  if (typeof s.minItems === "number") actions.push(`v.minLength(${literal(s.minItems)})`);
  if (typeof s.maxItems === "number") actions.push(`v.maxLength(${literal(s.maxItems)})`);
  return withPipe(`v.array(${node(s.items, `${path}[]`, problems, indent)})`, actions);
}

function objectCode(s: Node, path: string, problems: string[], indent: string): string {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const extra = s.additionalProperties;
  if (Object.keys(props).length === 0 && typeof extra === "object" && extra !== null) {
    return `v.record(v.string(), ${node(extra, `${path}.*`, problems, indent)})`;
  }
  if (extra !== undefined && extra !== false) {
    problems.push(`${path}: extra properties next to named ones cannot be enforced exactly`);
  }
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const inner = `${indent}  `;
  // Unlisted keys are refused even where the server's schema leaves them open: stricter, never looser.
  const lines = Object.entries(props).map(([key, value]) => {
    if (UNREAD_KEYS.has(key)) problems.push(`${path}: a key named "${key}" cannot be enforced`);
    const code = node(value, `${path}.${key}`, problems, inner);
    return `${inner}${keyLiteral(key)}: ${required.has(key) ? code : `v.optional(${code})`},`;
  });
  return lines.length === 0
    ? "v.strictObject({})"
    : `v.strictObject({\n${lines.join("\n")}\n${indent}})`;
}

function withPipe(base: string, actions: readonly string[]): string {
  return actions.length === 0 ? base : `v.pipe(${base}, ${actions.join(", ")})`;
}
