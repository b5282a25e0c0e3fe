/**
 * JSON Schema (as MCP servers list it) to valibot source code a person can read and tighten.
 * Only constructs valibot can enforce exactly are translated; anything else is refused with
 * the path of the offending node, never loosened to `v.unknown()`.
 *
 * Draft 2020-12 beyond single types: a `$ref` into the schema's own `$defs` is written out in
 * place (a recursive one is refused); `prefixItems` is a tuple; and an object's `allOf` and
 * `if`/`then`/`else` become checks (`keywordCheck`, contracts/json-schema.ts) of valibot schemas
 * with the keywords' exact meaning on the object, which the catalogue publishes as the server
 * listed them (with its `$defs`).
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
  // Names a schema for references; only `#/$defs/…` references are followed.
  "$anchor",
  // Definitions are read where a `$ref` names them, not as a constraint.
  "$defs",
]);

/** Composition keywords with no exact valibot form. */
const COMPOSITION = ["oneOf", "not", "$dynamicRef", "dependentSchemas", "dependentRequired"];

/** An object's keywords that constrain it as a whole, enforced by checks after its shape. */
const APPLICATORS = ["allOf", "if", "then", "else"] as const;

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
  array: ["type", "items", "prefixItems", "minItems", "maxItems"],
  object: ["type", "properties", "required", "additionalProperties", ...APPLICATORS],
};

/** Keys valibot never reads from an object (against prototype pollution), so never enforces. */
const UNREAD_KEYS = new Set(["__proto__", "prototype", "constructor"]);

type Node = Record<string, unknown>;

/** What one translation carries down the tree besides the node. */
interface Walk {
  /** Every construct that could not be expressed strictly. */
  problems: string[];
  /** The schema translated, whose `$defs` are published with its checks. */
  root: unknown;
  /** The root's `$defs`, which `$ref`s name. */
  defs: Record<string, unknown>;
  /** The definitions being written out, outermost first: a `$ref` to one of them recurses. */
  refs: readonly string[];
  /**
   * True inside a branch of `allOf` or `if`/`then`/`else`, applied to the object already
   * checked: a schema there has JSON Schema's own meaning (an object without
   * `additionalProperties: false` keeps other keys, a schema with no type constrains only
   * what it names), since being stricter in a condition would make the whole looser.
   */
  applied: boolean;
}

/** Translate `schema`; `where` names it in problems (e.g. `echo.input`). */
export function schemaCode(schema: unknown, where: string): SchemaCode {
  const defs = (schema as Node | null)?.$defs;
  const walk: Walk = {
    problems: [],
    root: schema,
    defs: typeof defs === "object" && defs !== null ? (defs as Record<string, unknown>) : {},
    refs: [],
    applied: false,
  };
  const code = node(schema, where, walk, "");
  return walk.problems.length === 0 ? { ok: true, code } : { ok: false, problems: walk.problems };
}

/** Whether the generated code uses `keywordCheck` (contracts/json-schema.ts), which it imports then. */
export function usesKeywordChecks(code: string): boolean {
  return code.includes("keywordCheck(");
}

function node(schema: unknown, path: string, walk: Walk, indent: string): string {
  const { problems } = walk;
  if (walk.applied && typeof schema === "boolean") return schema ? "v.unknown()" : "v.never()";
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    problems.push(
      `${path}: a schema that is not an object (${JSON.stringify(schema)}) accepts anything`,
    );
    return "";
  }
  const s = schema as Node;
  const base = shape(s, path, walk, indent);
  if (typeof s.description !== "string") return base;
  const description = `v.description(${literal(s.description)})`;
  // One pipe, not a pipe in a pipe: a pipe's call spans the whole expression.
  return base.startsWith("v.pipe(")
    ? `${base.slice(0, -1)}, ${description})`
    : withPipe(base, [description]);
}

function shape(s: Node, path: string, walk: Walk, indent: string): string {
  const { problems } = walk;
  if (typeof s.$ref === "string") return refCode(s, path, walk, indent);
  if (Array.isArray(s.enum)) return enumCode(s, path, problems);
  if ("const" in s) return `v.literal(${literal(s.const)})`;
  if (Array.isArray(s.anyOf)) {
    const branches = s.anyOf.map((b, i) => node(b, `${path}.anyOf[${i}]`, walk, indent));
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
    return `v.nullable(${shape({ ...s, type: other }, path, walk, indent)})`;
  }
  // In an applied branch a schema without a type constrains the object by what it names.
  if (walk.applied && type === undefined) {
    const named = Object.keys(s).filter((k) => !ANNOTATIONS.has(k));
    if (named.length === 0) return "v.unknown()";
    if (named.every((k) => KNOWN.object?.includes(k))) {
      return shape({ ...s, type: "object" }, path, walk, indent);
    }
  }
  const applicator = APPLICATORS.find((key) => key in s);
  if (type !== "object" && applicator !== undefined) {
    problems.push(
      `${path}: "${applicator}" is enforced only on an object schema ("type": "object")`,
    );
    return "";
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
      return arrayCode(s, path, walk, indent);
    default:
      return withChecks(objectCode(s, path, walk, indent), s, path, walk, indent);
  }
}

/**
 * A `$ref` into the schema's own `$defs` (`#/$defs/name`, RFC 6901 escapes), written out in
 * place; any other reference, a recursive one or a keyword beside it is refused.
 */
function refCode(s: Node, path: string, walk: Walk, indent: string): string {
  const ref = s.$ref as string;
  const beside = Object.keys(s).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k));
  if (beside.length > 0) {
    walk.problems.push(`${path}: "${beside[0]}" beside "$ref" cannot be enforced exactly`);
    return "";
  }
  const name = /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1]?.replaceAll("~1", "/").replaceAll("~0", "~");
  if (name === undefined || !Object.hasOwn(walk.defs, name)) {
    walk.problems.push(
      `${path}: "$ref" ${literal(ref)} names no definition of the schema's own "$defs"`,
    );
    return "";
  }
  if (walk.refs.includes(name)) {
    walk.problems.push(`${path}: "$ref" ${literal(ref)} is recursive, which has no exact check`);
    return "";
  }
  return node(walk.defs[name], path, { ...walk, refs: [...walk.refs, name] }, indent);
}

/**
 * An object's `allOf` and `if`/`then`/`else` as checks after its shape: each branch a valibot
 * schema applied to the object (JSON Schema's meaning: see `Walk.applied`), the keywords and
 * the root's `$defs` published as the server listed them.
 */
function withChecks(base: string, s: Node, path: string, walk: Walk, indent: string): string {
  const applied = { ...walk, applied: true };
  const inner = `${indent}  `;
  const checks: string[] = [];
  const listed: Record<string, unknown> = {};
  if (Array.isArray(s.allOf)) {
    listed.allOf = s.allOf;
    s.allOf.forEach((b, i) => {
      const at = `allOf[${i}]`;
      const branch = node(b, `${path}.${at}`, applied, inner);
      checks.push(`keywordCheck(${literal(at)}, (input) => v.is(${branch}, input))`);
    });
  } else if (s.allOf !== undefined) {
    walk.problems.push(`${path}: "allOf" is not a list of schemas`);
  }
  if (s.if !== undefined) {
    const branch = (key: "if" | "then" | "else") => {
      if (s[key] === undefined) return "v.unknown()";
      listed[key] = s[key];
      return node(s[key], `${path}.${key}`, applied, inner);
    };
    const [test, then, otherwise] = [branch("if"), branch("then"), branch("else")];
    checks.push(
      `keywordCheck("if/then/else", (input) =>\n${inner}  v.is(${test}, input) ? v.is(${then}, input) : v.is(${otherwise}, input),\n${inner})`,
    );
  }
  // Without "if", "then" and "else" are ignored (JSON Schema 2020-12, 10.2.2.2-3).
  // The definitions the published keywords' references name, as listed.
  if (s === walk.root && Object.keys(walk.defs).length > 0) listed.$defs = walk.defs;
  if (Object.keys(listed).length === 0) return base;
  const metadata = `v.metadata(${literal(listed)})`;
  return `v.pipe(\n${inner}${[base, ...checks, metadata].join(`,\n${inner}`)},\n${indent})`;
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

function arrayCode(s: Node, path: string, walk: Walk, indent: string): string {
  const actions: string[] = [];
  if (typeof s.minItems === "number") actions.push(`v.minLength(${literal(s.minItems)})`);
  if (typeof s.maxItems === "number") actions.push(`v.maxLength(${literal(s.maxItems)})`);
  if (Array.isArray(s.prefixItems)) {
    // 2020-12 tuples: the named positions, then `items` for the rest (none when absent or
    // false: stricter, never looser, than a tuple open to anything after them).
    const items = s.prefixItems.map((b, i) => node(b, `${path}[${i}]`, walk, indent));
    const tuple = `[${items.join(", ")}]`;
    const rest = s.items === undefined || s.items === false ? null : s.items;
    return withPipe(
      rest === null
        ? `v.strictTuple(${tuple})`
        : `v.tupleWithRest(${tuple}, ${node(rest, `${path}[]`, walk, indent)})`,
      actions,
    );
  }
  if (s.items === undefined || Array.isArray(s.items)) {
    walk.problems.push(`${path}: an array needs one "items" schema`);
    return "";
  }
  return withPipe(`v.array(${node(s.items, `${path}[]`, walk, indent)})`, actions);
}

function objectCode(s: Node, path: string, walk: Walk, indent: string): string {
  const { problems } = walk;
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const extra = s.additionalProperties;
  if (Object.keys(props).length === 0 && typeof extra === "object" && extra !== null) {
    return `v.record(v.string(), ${node(extra, `${path}.*`, walk, indent)})`;
  }
  // Applied to an object, a schema that does not close it keeps the object's other keys.
  const open = walk.applied && extra === undefined;
  if (extra !== undefined && extra !== false) {
    problems.push(`${path}: extra properties next to named ones cannot be enforced exactly`);
  }
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const inner = `${indent}  `;
  // Unlisted keys are refused even where the server's schema leaves them open: stricter, never
  // looser. A required key the properties do not describe must be there with any value, or,
  // where the schema allows no other keys, can never be (JSON Schema: it is one of them).
  const undescribed = extra === false ? "v.never()" : "v.unknown()";
  const unnamed = Symbol("no property schema");
  const described = { ...Object.fromEntries([...required].map((k) => [k, unnamed])), ...props };
  const lines = Object.entries(described).map(([key, value]) => {
    if (UNREAD_KEYS.has(key)) problems.push(`${path}: a key named "${key}" cannot be enforced`);
    const code = value === unnamed ? undescribed : node(value, `${path}.${key}`, walk, inner);
    return `${inner}${keyLiteral(key)}: ${required.has(key) ? code : `v.optional(${code})`},`;
  });
  const kind = open ? "v.looseObject" : "v.strictObject";
  return lines.length === 0 ? `${kind}({})` : `${kind}({\n${lines.join("\n")}\n${indent}})`;
}

function withPipe(base: string, actions: readonly string[]): string {
  return actions.length === 0 ? base : `v.pipe(${base}, ${actions.join(", ")})`;
}
