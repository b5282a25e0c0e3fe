/**
 * The detectors of the result rules: each finds spans of one kind in one string of a tool's
 * answer. Offsets are UTF-16 code units of that string, as JavaScript indexes it.
 */
import { findSecrets, SECRET_RULE_SET } from "./secret-rules.ts";

/** The kinds of text a result rule finds. */
export type DetectorKind =
  | "secrets"
  | "payment_card"
  | "email"
  | "phone"
  | "iban"
  | "hidden_characters"
  | "model_addressed";

/** One span a detector found. */
export interface Span {
  /** The kind of text. */
  kind: DetectorKind;
  /** What exactly: the secret rule's id, the character's code point, the phrase's name. */
  what: string;
  /** First code unit of the span. */
  start: number;
  /** One past its last code unit. */
  end: number;
}

function matches(kind: DetectorKind, what: string, pattern: RegExp, text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(pattern)) {
    spans.push({ kind, what, start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** Provider keys and tokens, private keys, JWTs and passwords in URLs (secret-rules.ts). */
export { findSecrets };

/** The Luhn check (ISO/IEC 7812-1 Annex B) over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A card number as people and systems write one: 13 to 19 digits unbroken, or grouped as cards
 * are printed, with one separator throughout — 4-4-4-4 (and a last group of up to three more
 * digits), 4-6-5 (15 digits) or 4-6-4 (14). A separator elsewhere is not a card's, so the tail
 * of a UUID (`…-b0c4-222222222222`) is not taken for one.
 */
const CARD = new RegExp(
  [
    "\\d{13,19}",
    "\\d{4}([ -])\\d{4}\\1\\d{4}\\1\\d{4}(?:\\1\\d{1,3})?",
    "\\d{4}([ -])\\d{6}\\2\\d{4,5}",
  ]
    .map((form) => `(?<![\\d-])${form}(?![\\d-])`)
    .join("|"),
  "g",
);

/** Payment card numbers: 13 to 19 digits, grouped as cards are, with a valid Luhn check digit. */
export function findPaymentCards(text: string): Span[] {
  return matches("payment_card", "pan", CARD, text).filter((s) => {
    const digits = text.slice(s.start, s.end).replace(/[ -]/g, "");
    // A run of one repeated digit passes Luhn for some lengths and is never a card.
    return luhnValid(digits) && !/^(\d)\1+$/.test(digits);
  });
}

const EMAIL = /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}\b/g;

/** Email addresses (a dotted domain with an alphabetic top level). */
export function findEmails(text: string): Span[] {
  return matches("email", "address", EMAIL, text);
}

/**
 * Phone numbers: international (`+` and 8 to 15 digits, E.164) with optional separators, or
 * the North American `(555) 123-4567` / `555-123-4567` forms. A date or a bare number is not.
 */
const PHONE =
  /(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\) ?\d{3}[-.]\d{4}|\d{3}[-.]\d{3}[-.]\d{4})(?![\w-])/g;

export function findPhones(text: string): Span[] {
  return matches("phone", "number", PHONE, text).filter((s) => {
    const digits = text.slice(s.start, s.end).replace(/\D/g, "").length;
    return digits >= 8 && digits <= 15;
  });
}

const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;

/** ISO 13616 check: the rearranged IBAN, letters as 10–35, is 1 modulo 97. */
export function ibanValid(iban: string): boolean {
  const s = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = (rest * (value > 9 ? 100 : 10) + value) % 97;
  }
  return rest === 1;
}

/** IBANs whose ISO 13616 check digits hold. */
export function findIbans(text: string): Span[] {
  return matches("iban", "iban", IBAN, text).filter((s) =>
    ibanValid(text.slice(s.start, s.end).replace(/ /g, "")),
  );
}

/**
 * Characters a reader does not see but a model reads: every format character (Unicode Cf:
 * zero-width characters, the soft hyphen, bidi marks, embeddings, overrides and isolates that
 * make text display in another order than it is read, Unicode TR9 and CVE-2021-42574; tag
 * characters, U+E0000–E007F) and every default-ignorable one (variation selectors, the
 * supplementary ones U+E0100–E01EF, Hangul fillers, the combining grapheme joiner): tags and
 * variation selectors are both used to smuggle text. The code point ranges of
 * `[\p{Cf}\p{Default_Ignorable_Code_Point}]` (Unicode 17; a test compares them with the
 * runtime's properties), looked up in a table: a regular expression of them searches a text
 * three times slower.
 */
const HIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x600, 0x605],
  [0x61c, 0x61c],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x890, 0x891],
  [0x8e2, 0x8e2],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
];
const FIRST_HIDDEN = 0xad;

/** 1 for each hidden character of the Basic Multilingual Plane. */
const HIDDEN_BMP = new Uint8Array(0x10000);
for (const [from, to] of HIDDEN_RANGES) {
  for (let cp = from; cp <= Math.min(to, 0xffff); cp++) HIDDEN_BMP[cp] = 1;
}

function hidden(cp: number): boolean {
  if (cp <= 0xffff) return HIDDEN_BMP[cp] === 1;
  return HIDDEN_RANGES.some(([from, to]) => cp >= from && cp <= to);
}

/**
 * A zero-width joiner between two pictographs is part of an emoji sequence (UTS #51 ED-16),
 * the first one perhaps shown as emoji or given a skin tone (ED-13 modifier sequence).
 */
const EMOJI_JOINER = /\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?$/u;
/**
 * A subdivision flag: the black flag, a subdivision's code in tag letters and digits, a cancel
 * tag (UTS #51 ED-14a; CLDR subdivision codes are 3 to 6 characters). Any other tag is hidden.
 */
const FLAG_TAGS = /^\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{3,6}\u{E007F}/u;
const BLACK_FLAG = 0x1f3f4;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;
/** U+FE0E and U+FE0F choose how a pictograph shows, and make a keycap (UTS #51 §1.4.3). */
const PRESENTATION = /^[\uFE0E\uFE0F]$/;
const PICTOGRAPH_BEFORE = /\p{Extended_Pictographic}$/u;
const KEYCAP = "\u20E3";

/** Whether `ch`, the character at `[at, end)` of `text`, belongs to an emoji sequence. */
function inEmoji(text: string, ch: string, at: number, end: number): boolean {
  if (ch === "\u200D") {
    return (
      EMOJI_JOINER.test(text.slice(Math.max(0, at - 4), at)) &&
      EMOJI_AFTER.test(text.slice(end, end + 2))
    );
  }
  return (
    PRESENTATION.test(ch) &&
    (PICTOGRAPH_BEFORE.test(text.slice(Math.max(0, at - 2), at)) || text[end] === KEYCAP)
  );
}

/** Invisible and format-control characters, each a span of its own. */
export function findHidden(text: string): Span[] {
  const spans: Span[] = [];
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c < FIRST_HIDDEN) continue;
    const cp = c >= 0xd800 && c <= 0xdbff ? (text.codePointAt(at) ?? c) : c;
    if (cp === BLACK_FLAG) {
      const flag = FLAG_TAGS.exec(text.slice(at, at + 16));
      if (flag) {
        at += flag[0].length - 1;
        continue;
      }
    }
    const end = at + (cp > 0xffff ? 2 : 1);
    if (hidden(cp)) {
      const ch = text.slice(at, end);
      if (!inEmoji(text, ch, at, end)) {
        const what = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
        spans.push({ kind: "hidden_characters", what, start: at, end });
      }
    }
    at = end - 1;
  }
  return spans;
}

/** Phrases that address the model reading the result rather than describe data. */
const ADDRESSED: readonly { what: string; pattern: RegExp }[] = [
  {
    what: "override",
    pattern:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions?|prompts?|messages?|directions?|rules|context)\b/gi,
  },
  {
    what: "role-marker",
    pattern:
      /<\|(?:system|user|assistant|im_start|im_end|endoftext|start_header_id|end_header_id|eot_id)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system-prompt|instructions)>/gi,
  },
  {
    what: "new-instructions",
    pattern: /\b(?:new|updated|real)\s+(?:system\s+)?instructions\s*:/gi,
  },
  {
    what: "persona",
    pattern: /\byou\s+are\s+now\s+(?:a|an|in|the|no\s+longer)\b/gi,
  },
  {
    what: "concealment",
    pattern:
      /\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to)\s+the\s+user\b/gi,
  },
];

/** Text addressed to the model: override phrases, chat-template role markers, personas. */
export function findModelAddressed(text: string): Span[] {
  return ADDRESSED.flatMap((a) => matches("model_addressed", a.what, a.pattern, text));
}

/**
 * What the detectors find with: the reading of a string (detection-text.ts) and the secret
 * formats' source. Part of the rules' version in the cache key, so a result stored before a
 * detector changed is not served after; raise the number when what a detector finds changes.
 */
export const DETECTORS_VERSION = `2 ${SECRET_RULE_SET.source}`;

/** Each detector by the kind it finds. */
export const DETECTORS: Readonly<Record<DetectorKind, (text: string) => Span[]>> = {
  secrets: findSecrets,
  payment_card: findPaymentCards,
  email: findEmails,
  phone: findPhones,
  iban: findIbans,
  hidden_characters: findHidden,
  model_addressed: findModelAddressed,
};
