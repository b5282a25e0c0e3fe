/**
 * The lexical half of the strict JSON parser (src/core/json.ts): numbers, strings with their
 * escapes and surrogates, whitespace, and the refusals that name the character where reading
 * stopped. The parser adds the structure (containers, member names, depth) on top.
 */
import { type Refusal, refuse } from "./reasons.ts";

/** Internal control flow only; never escapes `parseStrictJson`. */
export class ParseFailure {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    this.refusal = refusal;
  }
}

/** Reads tokens of `text` from `pos`; subclasses decide what the tokens build. */
export abstract class Scanner {
  protected readonly text: string;
  protected pos = 0;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(text: string) {
    this.text = text;
  }

  /** RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
  protected number(): number {
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
  protected digits(pos: number, what: string): number {
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
  protected string(): string {
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
  protected escape(): string {
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
  protected hex4(pos: number): number {
    let unit = 0;
    for (let i = pos; i < pos + 4; i++) {
      const d = hexDigit(this.text.charCodeAt(i));
      if (d < 0) this.fail(pos - 2, "A \\u escape needs four hex digits");
      unit = (unit << 4) | d;
    }
    return unit;
  }

  /** RFC 8259 §2: whitespace is space, tab, LF and CR only. */
  protected skipWs(): void {
    const text = this.text;
    let pos = this.pos;
    let c = text.charCodeAt(pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
    this.pos = pos;
  }

  protected expected(what: string): never {
    const c = this.text.charCodeAt(this.pos);
    // Printable ASCII as is, anything else by code point, so details stay readable.
    const found = Number.isNaN(c)
      ? "end of input"
      : c > 0x20 && c < 0x7f
        ? quote(String.fromCharCode(c))
        : `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    return malformed(`Expected ${what} at character ${this.pos}, found ${found}.`);
  }

  protected fail(pos: number, problem: string): never {
    return malformed(`${problem} at character ${pos}.`);
  }
}

export function malformed(detail: string): never {
  throw new ParseFailure(refuse("malformed_payload", detail));
}

/** A JSON-quoted, length-capped rendering for details. */
export function quote(s: string): string {
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
