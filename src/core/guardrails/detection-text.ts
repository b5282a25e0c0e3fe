/**
 * The text the detectors read: a string of a tool's answer as a reader takes it, not as its
 * code units run. A character nobody sees is dropped (every format character, Unicode Cf; every
 * default-ignorable one: zero-width characters, bidi controls, tag characters, variation
 * selectors; combining marks; control characters but tab and line breaks), a compatibility
 * form is folded (NFKC: fullwidth `４`, `ｇ`, `＠`, a no-break space), and a letter of another
 * script that passes for an ASCII one reads as that one (Unicode's confusables, UTS #39, the
 * table listing-scan.ts uses), as does a letter whose accents are dropped. So a zero-width
 * space inside a token, or a Cyrillic `о` inside "ignore", hides nothing from a rule. What the
 * detectors find there is mapped back to the code units of the string as received, so a
 * redaction covers the hidden characters inside a secret too.
 *
 * Most strings of most answers are printable ASCII, where the text is the string itself: one
 * scan finds that, and nothing is built.
 */
import CONFUSABLES from "./confusables.json" with { type: "json" };

/** Any character but printable ASCII, tab and line breaks: where a string needs reading. */
const NOT_PLAIN = /[^\t\n\r\x20-\x7e]/;
const PLAIN_RUN = /[\t\n\r\x20-\x7e]*/y;

/** Characters no reader sees, whatever their neighbours. */
const UNSEEN = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Mn}\p{Me}\p{Cc}]$/u;
const MARKS = /\p{M}/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** Non-ASCII characters whose prototype is ASCII (UTS #39 `confusables.txt`, the vendored subset). */
const PROTOTYPES: Readonly<Record<string, string>> = CONFUSABLES.prototypes;

/** Whether `text` reads as its own code units: printable ASCII, tabs and line breaks only. */
export function plain(text: string): boolean {
  return !NOT_PLAIN.test(text);
}

/**
 * The detectors' reading of a string, and where it differs from the string: each character
 * read otherwise (folded, or dropped) is a change; between changes, the two run alike.
 */
export interface DetectionText {
  /** What the detectors search. */
  text: string;
  /** Where each change's reading starts in `text` (ascending). */
  textAt: readonly number[];
  /** Its length in `text`: 0 for a character read as nothing. */
  textLength: readonly number[];
  /** Where the changed character is in the string as received. */
  fromAt: readonly number[];
  /** Its length there: 1, or 2 for a surrogate pair. */
  fromLength: readonly number[];
}

/**
 * The reading of `original`, or null when it reads as itself (printable ASCII, or characters
 * that each read as themselves).
 */
export function detectionText(original: string): DetectionText | null {
  if (plain(original)) return null;
  const textAt: number[] = [];
  const textLength: number[] = [];
  const fromAt: number[] = [];
  const fromLength: number[] = [];
  const pieces: string[] = [];
  let length = 0;
  // Where the run read as itself began: the text is the runs and the changes, joined.
  let runFrom = 0;
  let i = 0;
  while (i < original.length) {
    // A run of printable ASCII is skipped natively (a sticky test allocates nothing).
    PLAIN_RUN.lastIndex = i;
    PLAIN_RUN.test(original);
    for (i = PLAIN_RUN.lastIndex; i < original.length; i++) {
      const c = original.charCodeAt(i);
      if (c >= 0x20 ? c <= 0x7e : c === 0x09 || c === 0x0a || c === 0x0d) break;
      // Most characters of a non-ASCII text read as themselves, and are known to.
      if (SELF[c] === 1) continue;
      const cp = original.codePointAt(i) ?? c;
      const units = cp > 0xffff ? 2 : 1;
      const read = folded(cp);
      if (read !== null) {
        pieces.push(original.slice(runFrom, i), read);
        length += i - runFrom;
        textAt.push(length);
        textLength.push(read.length);
        fromAt.push(i);
        fromLength.push(units);
        length += read.length;
        runFrom = i + units;
      }
      i += units - 1;
    }
  }
  if (textAt.length === 0) return null;
  pieces.push(original.slice(runFrom));
  return { text: pieces.join(""), textAt, textLength, fromAt, fromLength };
}

/**
 * Folded characters by code point, null for one that reads as itself: a text repeats few
 * distinct ones. Bounded, then cleared.
 */
const FOLDED = new Map<number, string | null>();
const FOLDED_MAX = 4_096;
/** 1 for a BMP character known to read as itself: a byte per code unit, read before the map. */
const SELF = new Uint8Array(0x10000);

/** What one non-plain character reads as: nothing, ASCII look-alikes, or itself (null). */
function folded(cp: number): string | null {
  const known = FOLDED.get(cp);
  if (known !== undefined) return known;
  const ch = String.fromCodePoint(cp);
  let out = "";
  if (!UNSEEN.test(ch)) {
    for (const c of ch.normalize("NFKC")) out += c.charCodeAt(0) < 0x80 ? c : asLatin(c);
  }
  const read = out === ch ? null : out;
  if (read === null && cp <= 0xffff) SELF[cp] = 1;
  if (FOLDED.size >= FOLDED_MAX) FOLDED.clear();
  FOLDED.set(cp, read);
  return read;
}

/** A non-ASCII character after NFKC: its ASCII prototype, its letter without accents, or itself. */
function asLatin(c: string): string {
  if (UNSEEN.test(c)) return "";
  const prototype = PROTOTYPES[c];
  if (prototype !== undefined) return prototype;
  const bare = c.normalize("NFD").replace(MARKS, "");
  return PRINTABLE_ASCII.test(bare) ? bare : c;
}

/** The last change of `reading` whose reading starts at or before unit `i` of its text; -1 for none. */
function changeBefore(reading: DetectionText, i: number): number {
  let lo = -1;
  let hi = reading.textAt.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((reading.textAt[mid] ?? 0) <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Unit `i` of the reading's text in the string as received: `[start, end)` of the character
 * it was read from (a folded character's reading is all that character).
 */
function unitInOriginal(reading: DetectionText, i: number): [number, number] {
  const j = changeBefore(reading, i);
  if (j < 0) return [i, i + 1];
  const at = reading.textAt[j] ?? 0;
  const length = reading.textLength[j] ?? 0;
  const from = reading.fromAt[j] ?? 0;
  const units = reading.fromLength[j] ?? 0;
  if (i < at + length) return [from, from + units];
  const same = from + units + (i - at - length);
  return [same, same + 1];
}

/**
 * A span `[start, end)` of the reading's text as a span of the string as received: from the
 * first character it reads to the last, every unseen character between them included.
 */
export function spanInOriginal(
  reading: DetectionText,
  start: number,
  end: number,
): { start: number; end: number } {
  return {
    start: unitInOriginal(reading, start)[0],
    end: unitInOriginal(reading, Math.max(start, end - 1))[1],
  };
}
