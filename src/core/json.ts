/**
 * A strict, single-pass JSON parser: duplicate keys, lone surrogates, non-finite numbers,
 * prototype keys and excessive depth are refused, never repaired.
 */
import { malformed, ParseFailure, quote, Scanner } from "./json-scan.ts";
import { type Refusal, refuse } from "./reasons.ts";
import { err, ok, type Result } from "./result.ts";

/** A JSON value as RFC 8259 defines it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object; the parser builds it with a null prototype. */
export type JsonObject = { [key: string]: JsonValue };

/** Bounds the parser enforces while it reads. */
export interface JsonLimits {
  /** Deepest nesting of arrays/objects allowed: `[]` is depth 1, a scalar depth 0. */
  maxDepth: number;
}

// Member names that reach Object.prototype when a consumer copies them onto a plain object.
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const VALUE_START = "a JSON value (object, array, string, number, true, false or null)";

/** One open array or object, and (for objects) the name of the member being read. */
type Frame = { node: JsonValue[] | JsonObject; key: string };

/**
 * Parse `text` as exactly one RFC 8259 JSON value, refusing what JSON.parse accepts
 * silently or what could mislead a consumer: duplicate member names, lone surrogates,
 * non-finite numbers, prototype-polluting names, and nesting deeper than
 * `limits.maxDepth` (checked as soon as it is exceeded; no recursion).
 */
export function parseStrictJson(text: string, limits: JsonLimits): Result<JsonValue, Refusal> {
  try {
    return ok(new Parser(text, limits.maxDepth).document());
  } catch (e) {
    if (e instanceof ParseFailure) return err(e.refusal);
    throw e;
  }
}

class Parser extends Scanner {
  private readonly maxDepth: number;
  private readonly stack: Frame[] = [];

  constructor(text: string, maxDepth: number) {
    super(text);
    this.maxDepth = maxDepth;
  }

  document(): JsonValue {
    this.skipWs();
    let value = this.openOrScalar();
    // Containers are filled through an explicit stack, so depth never grows the call stack.
    while (value === undefined || this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1];
      value =
        value === undefined || top === undefined ? this.openOrScalar() : this.attach(top, value);
    }
    this.skipWs();
    if (this.pos < this.text.length) this.expected("end of input after the JSON value");
    return value;
  }

  /** A scalar or an empty container, or `undefined` after opening a non-empty one. */
  private openOrScalar(): JsonValue | undefined {
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (c !== 0x5b && c !== 0x7b) return this.scalar(c);
    const depth = this.stack.length + 1;
    if (depth > this.maxDepth) {
      const detail = `Nesting deeper than ${this.maxDepth} levels at character ${this.pos}.`;
      throw new ParseFailure(refuse("payload_too_large", detail));
    }
    this.pos++;
    this.skipWs();
    const isArray = c === 0x5b;
    const empty = text.charCodeAt(this.pos) === (isArray ? 0x5d : 0x7d);
    if (empty) this.pos++;
    if (isArray) {
      if (!empty) this.stack.push({ node: [], key: "" });
      return empty ? [] : undefined;
    }
    // Null prototype: no member name can reach Object.prototype, whatever the name checks.
    const obj: JsonObject = Object.create(null);
    if (empty) return obj;
    const frame: Frame = { node: obj, key: "" };
    this.stack.push(frame);
    this.memberName(frame, obj);
    return undefined;
  }

  /** Store a finished value in its container; return the container if that closed it. */
  private attach(top: Frame, value: JsonValue): JsonValue | undefined {
    const node = top.node;
    const isArray = Array.isArray(node);
    if (isArray) node.push(value);
    else node[top.key] = value;
    this.skipWs();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x2c) {
      this.pos++;
      this.skipWs();
      if (!isArray) this.memberName(top, node);
      return undefined;
    }
    if (c === (isArray ? 0x5d : 0x7d)) {
      this.pos++;
      this.stack.pop();
      return node;
    }
    return this.expected(isArray ? '"," or "]"' : '"," or "}"');
  }

  /** Read `"name" :` into the frame, refusing duplicates and prototype names. */
  private memberName(frame: Frame, obj: JsonObject): void {
    if (this.text.charCodeAt(this.pos) !== 0x22) this.expected("a member name in double quotes");
    const key = this.string();
    if (FORBIDDEN_KEYS.has(key)) {
      malformed(`Member name ${quote(key)} at ${this.pathTo(key)} is not allowed.`);
    }
    // JSON values are never undefined, and the null prototype means only own members match.
    if (obj[key] !== undefined) {
      malformed(`Duplicate member name ${quote(key)} at ${this.pathTo(key)}.`);
    }
    frame.key = key;
    this.skipWs();
    if (this.text.charCodeAt(this.pos) !== 0x3a) this.expected('":" after the member name');
    this.pos++;
    this.skipWs();
  }

  private scalar(c: number): JsonValue {
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    const text = this.text;
    const word = c === 0x74 ? "true" : c === 0x66 ? "false" : c === 0x6e ? "null" : "";
    if (word === "" || !text.startsWith(word, this.pos)) return this.expected(VALUE_START);
    this.pos += word.length;
    return c === 0x6e ? null : c === 0x74;
  }

  /** Dotted path of member `key` of the innermost open object. */
  private pathTo(key: string): string {
    const outer = this.stack.slice(0, -1);
    const parts = outer.map((f) => (Array.isArray(f.node) ? String(f.node.length) : f.key));
    return `path ${quote([...parts, key].join("."))}`;
  }
}
