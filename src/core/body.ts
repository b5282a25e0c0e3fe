/**
 * Reading a call's body: the media type, the strict JSON, and the accepted forms (canonical,
 * OpenAI, Anthropic, raw model text), mapped to one proposed call with its idempotency key.
 */
import { type JsonLimits, type JsonObject, type JsonValue, parseStrictJson } from "./json.ts";
import { type ContractIssue, type Refusal, refuse } from "./reasons.ts";
import { err, ok, type Result } from "./result.ts";

/** Which body form a call came in; `mcp` is a `tools/call` over the MCP endpoint. */
export type CallForm = "canonical" | "text" | "openai" | "anthropic" | "mcp";

/** One proposed call, the same whatever form it came in. */
export interface ProposedCall {
  /** Tool name exactly as sent: never trimmed or case-folded. */
  tool: string;
  /** The arguments object, not yet validated against the tool's contract. */
  args: JsonValue;
  /** Idempotency key from the header or the body, or null. */
  idempotencyKey: string | null;
  /** Which form the call came in. */
  form: CallForm;
}

/** Bounds on a call body. */
export interface BodyLimits extends JsonLimits {}

/** The call as its envelope states it, before the idempotency key is settled. */
type Envelope = {
  tool: string;
  args: JsonObject;
  bodyKey: JsonValue | undefined;
  form: Exclude<CallForm, "text" | "mcp">;
};

type MediaKind = "json" | "text";

const ACCEPTED = "application/json, application/*+json or text/plain, with charset utf-8 if any";
const SHAPES =
  'Send {"tool", "args"}, an OpenAI tool call {"type": "function", "function": ' +
  '{"name", "arguments"}} or an Anthropic block {"type": "tool_use", "name", "input"}.';
// RFC 9110 §8.3.1: a media type is `type/subtype` of tokens; `+json` is the RFC 6839 suffix.
const JSON_SUFFIXED = /^application\/[!#$%&'*.^_`|~0-9a-z-][!#$%&'*+.^_`|~0-9a-z-]*\+json$/;
/** Forwarded later as an HTTP header value, so printable ASCII without spaces only. */
export const KEY_PATTERN = /^[A-Za-z0-9._:~+/=-]{8,128}$/;
const KEY_EXPECTED = "8-128 characters of [A-Za-z0-9._:~+/=-]";
/**
 * Prefix of the keys the fence derives itself (an MCP mutation sent without a key); no key a
 * caller sends may begin with it, in any case, so no caller can claim a derived key before its
 * call does, nor send one that reads as derived.
 */
export const DERIVED_KEY_PREFIX = "mcp:";

/**
 * Map a request body in any accepted form to one proposed call. JSON bodies and the
 * fenced or bare JSON of a model's text answer go through the same strict parser;
 * nothing is repaired, trimmed inside the JSON, or guessed.
 */
export function readCall(
  contentType: string | null,
  text: string,
  headerKey: string | null,
  limits: BodyLimits,
): Result<ProposedCall, Refusal> {
  const media = mediaKind(contentType);
  if (!media.ok) return media;
  const isText = media.value === "text";
  const source = isText ? unfence(text) : ok(text);
  if (!source.ok) return source;
  const parsed = parseStrictJson(source.value, limits);
  if (!parsed.ok) return isText ? err(within("the text body", parsed.error)) : parsed;
  const call = envelope(parsed.value, limits);
  if (!call.ok) return call;
  const key = idempotencyKey(call.value.bodyKey, headerKey);
  if (!key.ok) return key;
  const { tool, args, form } = call.value;
  return ok({ tool, args, idempotencyKey: key.value, form: isText ? "text" : form });
}

/**
 * The body's media type, compared case-insensitively; only UTF-8 is read. The HTTP edge
 * calls it before reading a body, so a body in another charset is never decoded at all.
 */
export function mediaKind(contentType: string | null): Result<MediaKind, Refusal> {
  const unsupported = (what: string) =>
    err(refuse("unsupported_media_type", `${what}; send ${ACCEPTED}.`));
  if (contentType === null) return unsupported("The request has no Content-Type");
  const [type = "", ...params] = contentType.split(";");
  const media = type.trim().toLowerCase();
  const isJson = media === "application/json" || JSON_SUFFIXED.test(media);
  if (!isJson && media !== "text/plain") {
    return unsupported(`Content-Type ${quote(media)} is not accepted`);
  }
  for (const param of params) {
    if (param.trim() === "") continue;
    const eq = param.indexOf("=");
    if (eq < 0) return unsupported(`Content-Type parameter ${quote(param.trim())} is malformed`);
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = param.slice(eq + 1).trim();
    // RFC 9110 §8.3.2: charset values are case-insensitive and may be quoted.
    if (name === "charset" && value.replace(/^"(.*)"$/, "$1").toLowerCase() !== "utf-8") {
      return unsupported(`Charset ${quote(value)} is not accepted`);
    }
  }
  return ok(isJson ? "json" : "text");
}

/**
 * The JSON in a model's text answer: the whole trimmed text, or exactly what sits between
 * an opening fence (with an optional language tag) and a closing fence that ends the text.
 */
function unfence(text: string): Result<string, Refusal> {
  const trimmed = text.trim();
  if (!trimmed.startsWith("```")) return ok(trimmed);
  const newline = trimmed.indexOf("\n");
  const tag = newline < 0 ? trimmed.slice(3) : trimmed.slice(3, newline).trim();
  if (newline < 0 || !/^[\w.+#-]*$/.test(tag)) {
    return malformed("An opening markdown fence is ``` and an optional language tag on one line.");
  }
  if (!trimmed.endsWith("```")) {
    const closed = trimmed.indexOf("```", newline) >= 0;
    return malformed(
      closed
        ? "Text follows the closing markdown fence; send only the fenced JSON."
        : "The markdown fence is never closed; the JSON may be truncated.",
    );
  }
  return ok(trimmed.slice(newline + 1, trimmed.length - 3));
}

/** Recognise the envelope shape and take the tool name, arguments and body key from it. */
function envelope(value: JsonValue, limits: JsonLimits): Result<Envelope, Refusal> {
  if (!isObject(value)) return malformed(`The call must be a JSON object, not ${kindOf(value)}.`);
  if (value.tool !== undefined) return canonical(value);
  if (value.type === "function") return openai(value, limits);
  if (value.type === "tool_use") return anthropic(value);
  return malformed(`The call matches no accepted shape. ${SHAPES}`);
}

/** `{ "tool", "args", "idempotency_key"? }`. */
function canonical(call: JsonObject): Result<Envelope, Refusal> {
  const unknown = unknownKey(call, ["tool", "args", "idempotency_key"], "");
  if (unknown !== null) return err(unknown);
  const tool = toolName(call.tool, "tool");
  if (!tool.ok) return tool;
  const args = argsObject(call.args, "args");
  if (!args.ok) return args;
  const bodyKey = call.idempotency_key;
  return ok({ tool: tool.value, args: args.value, bodyKey, form: "canonical" });
}

/** `{ "type": "function", "id"?, "function": { "name", "arguments": "<JSON text>" } }`. */
function openai(call: JsonObject, limits: JsonLimits): Result<Envelope, Refusal> {
  const fn = call.function;
  const problem =
    unknownKey(call, ["type", "id", "function"], "") ??
    optionalId(call.id) ??
    (isObject(fn) ? unknownKey(fn, ["name", "arguments"], "function.") : null);
  if (problem !== null) return err(problem);
  if (!isObject(fn)) return wrongType("function", "a JSON object", fn);
  const tool = toolName(fn.name, "function.name");
  if (!tool.ok) return tool;
  const text = fn.arguments;
  if (typeof text !== "string") {
    return wrongType("function.arguments", "a string of JSON", text);
  }
  // The envelope already spent one level; the arguments get what canonical `args` would.
  const parsed = parseStrictJson(text, { maxDepth: limits.maxDepth - 1 });
  if (!parsed.ok) return err(within("function.arguments", parsed.error));
  const args = argsObject(parsed.value, "function.arguments");
  if (!args.ok) return args;
  return ok({ tool: tool.value, args: args.value, bodyKey: undefined, form: "openai" });
}

/** `{ "type": "tool_use", "id"?, "name", "input": { … } }`. */
function anthropic(call: JsonObject): Result<Envelope, Refusal> {
  const problem = unknownKey(call, ["type", "id", "name", "input"], "") ?? optionalId(call.id);
  if (problem !== null) return err(problem);
  const tool = toolName(call.name, "name");
  if (!tool.ok) return tool;
  const args = argsObject(call.input, "input");
  if (!args.ok) return args;
  return ok({ tool: tool.value, args: args.value, bodyKey: undefined, form: "anthropic" });
}

/** Settle the key: body and header must agree, and it must be header-safe. */
function idempotencyKey(
  bodyKey: JsonValue | undefined,
  headerKey: string | null,
): Result<string | null, Refusal> {
  const bodyProblem = bodyKey === undefined ? null : keyProblem(bodyKey, "in the body");
  const headerProblem = headerKey === null ? null : keyProblem(headerKey, "in the header");
  const problem = bodyProblem ?? headerProblem;
  if (problem !== null) return err(problem);
  if (bodyKey !== undefined && headerKey !== null && bodyKey !== headerKey) {
    return malformed("The idempotency_key in the body differs from the Idempotency-Key header.");
  }
  return ok(typeof bodyKey === "string" ? bodyKey : headerKey);
}

/**
 * Whether `key` begins with the derived keys' prefix in any case: keys are compared exactly, but
 * `MCP:<hex>` read by a person, a log search or a case-folding store passes for a derived key.
 */
function isDerivedForm(key: string): boolean {
  return key.slice(0, DERIVED_KEY_PREFIX.length).toLowerCase() === DERIVED_KEY_PREFIX;
}

function keyProblem(key: JsonValue, where: string): Refusal | null {
  if (typeof key === "string" && isDerivedForm(key)) {
    const issue: ContractIssue = {
      path: "idempotency_key",
      message: `Keys beginning with ${DERIVED_KEY_PREFIX} (in any case) are derived by the fence; send another key.`,
      expected: `a key not beginning with ${DERIVED_KEY_PREFIX} in any case`,
      received: `a key beginning with ${quote(key.slice(0, DERIVED_KEY_PREFIX.length))}`,
    };
    return refuse("contract_violation", `The idempotency key ${where} is reserved.`, [issue]);
  }
  if (typeof key === "string" && KEY_PATTERN.test(key)) return null;
  let received = kindOf(key);
  if (typeof key === "string") {
    const bad = key.search(/[^A-Za-z0-9._:~+/=-]/);
    received = `string of ${key.length} characters`;
    if (bad >= 0) received += ` with ${quote(String.fromCodePoint(key.codePointAt(bad) ?? 0))}`;
  }
  const issue: ContractIssue = {
    path: "idempotency_key",
    message: `The idempotency key ${where} must be ${KEY_EXPECTED}.`,
    expected: KEY_EXPECTED,
    received,
  };
  return refuse("contract_violation", `The idempotency key ${where} is not valid.`, [issue]);
}

function toolName(name: JsonValue | undefined, path: string): Result<string, Refusal> {
  // Passed through untouched: a near-miss name must fail later as an unknown tool.
  if (typeof name === "string") return ok(name);
  return wrongType(path, "the tool name as a string", name);
}

function argsObject(args: JsonValue | undefined, path: string): Result<JsonObject, Refusal> {
  if (isObject(args)) return ok(args);
  // A string holding JSON is refused, not parsed: the contract names one representation.
  const hint = typeof args === "string" ? "; a string holding JSON is not parsed" : "";
  return wrongType(path, "a JSON object", args, hint);
}

function optionalId(id: JsonValue | undefined): Refusal | null {
  if (id === undefined || typeof id === "string") return null;
  return refuse("malformed_payload", `"id" must be a string, not ${kindOf(id)}.`);
}

/** The first member not in `allowed`, as a refusal naming it. */
function unknownKey(obj: JsonObject, allowed: readonly string[], prefix: string): Refusal | null {
  const key = Object.keys(obj).find((k) => !allowed.includes(k));
  if (key === undefined) return null;
  const list = allowed.map((k) => `"${prefix}${k}"`).join(", ");
  return refuse("malformed_payload", `Unknown key "${prefix}${key}"; this shape allows ${list}.`);
}

/** Re-scope a parser refusal to the part of the body it came from. */
function within(where: string, refusal: Refusal): Refusal {
  const detail = refusal.detail;
  return refuse(refusal.reason, `In ${where}: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}`);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: JsonValue | undefined): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function quote(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

function wrongType(path: string, wanted: string, value: JsonValue | undefined, hint = "") {
  if (value === undefined) return malformed(`"${path}" is missing; it must be ${wanted}.`);
  return malformed(`"${path}" must be ${wanted}, not ${kindOf(value)}${hint}.`);
}

function malformed(detail: string): { ok: false; error: Refusal } {
  return err(refuse("malformed_payload", detail));
}
