/**
 * A strict, single-pass JSON parser: duplicate keys, lone surrogates, non-finite numbers,
 * prototype keys and excessive depth are refused, never repaired.
 */
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

/** Internal control flow only; never escapes `parseStrictJson`. */
class ParseFailure {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    this.refusal = refusal;
  }
}

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

class Parser {
  private readonly text: string;
  private readonly maxDepth: number;
  private readonly stack: Frame[] = [];
  private pos = 0;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(text: string, maxDepth: number) {
    this.text = text;
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

  /** RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
  private number(): number {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    let c = text.charCodeAt(pos);
    if (c === 0x2d) c = text.charCodeAt(++pos);
    let int = 0;
    if (c === 0x30) {
      c = text.charCodeAt(++pos);
      if (c >= 0x30 && c <= 0x39) this.fail(pos, "Leading zeros are not allowed in a number");
    } else if (c >= 0x31 && c <= 0x39) {
      do {
        int = int * 10 + (c - 0x30);
        c = text.charCodeAt(++pos);
      } while (c >= 0x30 && c <= 0x39);
    } else {
      this.pos = pos;
      return this.expected("a digit");
    }
    // Up to 15 digits an integer is exact in a double, so skip the string conversion.
    const simple = c !== 0x2e && c !== 0x65 && c !== 0x45 && pos - start <= 15;
    if (c === 0x2e) pos = this.digits(pos + 1, "a digit after the decimal point");
    c = text.charCodeAt(pos);
    if (c === 0x65 || c === 0x45) {
      c = text.charCodeAt(++pos);
      if (c === 0x2b || c === 0x2d) pos++;
      pos = this.digits(pos, "a digit in the exponent");
    }
    this.pos = pos;
    if (simple) return text.charCodeAt(start) === 0x2d ? -int : int;
    const n = Number(text.slice(start, pos));
    if (!Number.isFinite(n)) this.fail(start, "The number does not fit a finite 64-bit float");
    return n;
  }

  /** Skip one or more digits starting at `pos`; return the position after them. */
  private digits(pos: number, what: string): number {
    const text = this.text;
    let c = text.charCodeAt(pos);
    if (!(c >= 0x30 && c <= 0x39)) {
      this.pos = pos;
      this.expected(what);
    }
    do c = text.charCodeAt(++pos);
    while (c >= 0x30 && c <= 0x39);
    return pos;
  }

  /** RFC 8259 §7, plus well-formed UTF-16: surrogates only in pairs, raw or escaped. */
  private string(): string {
    const text = this.text;
    const open = this.pos;
    let pos = open + 1;
    let start = pos;
    let out = "";
    for (;;) {
      // Runs of plain characters are skipped by the regex engine, not one by one.
      PLAIN_RUN.lastIndex = pos;
      PLAIN_RUN.test(text);
      pos = PLAIN_RUN.lastIndex;
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c >= 0x20 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) {
        pos++;
        continue;
      }
      if (pos >= text.length) this.fail(open, "The string starting here is never closed");
      if (c < 0x20) this.fail(pos, "A control character must be escaped in a string");
      if (c === 0x5c) {
        out += text.slice(start, pos);
        this.pos = pos;
        out += this.escape();
        pos = start = this.pos;
        continue;
      }
      const next = text.charCodeAt(pos + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        this.fail(pos, "A string holds a lone surrogate");
      }
      pos += 2;
    }
    this.pos = pos + 1;
    return out + text.slice(start, pos);
  }

  /** Decode the escape at `this.pos` (a backslash) and move past it. */
  private escape(): string {
    const pos = this.pos;
    const e = this.text.charCodeAt(pos + 1);
    const index = ESCAPE_NAMES.indexOf(String.fromCharCode(e));
    if (index >= 0) {
      this.pos = pos + 2;
      return ESCAPE_VALUES.charAt(index);
    }
    if (e !== 0x75) this.fail(pos, "Invalid escape sequence in a string");
    const unit = this.hex4(pos + 2);
    if (unit < 0xd800 || unit > 0xdfff) {
      this.pos = pos + 6;
      return String.fromCharCode(unit);
    }
    // RFC 8259 §7: a non-BMP character escapes as a high then a low surrogate.
    const low = this.text.startsWith("\\u", pos + 6) ? this.hex4(pos + 8) : -1;
    if (unit > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) {
      this.fail(pos, "A string holds a lone surrogate escape");
    }
    this.pos = pos + 12;
    return String.fromCharCode(unit, low);
  }

  /** The four hex digits at `pos` as a code unit. */
  private hex4(pos: number): number {
    let unit = 0;
    for (let i = pos; i < pos + 4; i++) {
      const d = hexDigit(this.text.charCodeAt(i));
      if (d < 0) this.fail(pos - 2, "A \\u escape needs four hex digits");
      unit = (unit << 4) | d;
    }
    return unit;
  }

  /** RFC 8259 §2: whitespace is space, tab, LF and CR only. */
  private skipWs(): void {
    const text = this.text;
    let pos = this.pos;
    let c = text.charCodeAt(pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
    this.pos = pos;
  }

  /** Dotted path of member `key` of the innermost open object. */
  private pathTo(key: string): string {
    const outer = this.stack.slice(0, -1);
    const parts = outer.map((f) => (Array.isArray(f.node) ? String(f.node.length) : f.key));
    return `path ${quote([...parts, key].join("."))}`;
  }

  private expected(what: string): never {
    const c = this.text.charCodeAt(this.pos);
    // Printable ASCII as is, anything else by code point, so details stay readable.
    const found = Number.isNaN(c)
      ? "end of input"
      : c > 0x20 && c < 0x7f
        ? quote(String.fromCharCode(c))
        : `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    return malformed(`Expected ${what} at character ${this.pos}, found ${found}.`);
  }

  private fail(pos: number, problem: string): never {
    return malformed(`${problem} at character ${pos}.`);
  }
}

function malformed(detail: string): never {
  throw new ParseFailure(refuse("malformed_payload", detail));
}

/** A JSON-quoted, length-capped rendering for details. */
function quote(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}

// RFC 8259 §7: a backslash and a character of ESCAPE_NAMES stand for the same-index value.
const ESCAPE_NAMES = '"\\/bfnrt';
const ESCAPE_VALUES = '"\\/\b\f\n\r\t';

/** Characters a string may hold as they are: not a quote, backslash, control or surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: RFC 8259 §7 refuses exactly U+0000-U+001F raw.
const PLAIN_RUN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;

/** The value of one hex digit, or -1. */
function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
