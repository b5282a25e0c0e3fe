/**
 * Go RE2 syntax (github.com/google/re2/wiki/Syntax) to a JavaScript RegExp, for the patterns of
 * a gitleaks rule file. A leading `(?i)` or `(?s)` becomes a flag; an inline flag later in the
 * pattern becomes a modifier group `(?i:…)` up to the end of its group (ES2025 RegExp
 * modifiers), closed and opened again around each `|` of that group; `(?P<name>` becomes
 * `(?<name>`; `\z` and `\A` become `$` and `^`; POSIX classes become ranges. What has no
 * faithful translation (Unicode classes `\p`, `\Q…\E`, the multi-line flag, possessive
 * quantifiers) is refused with the reason.
 */

/** A translated pattern, or why there is none. */
export type Translated = { ok: true; source: string; flags: string } | { ok: false; why: string };

const POSIX: Readonly<Record<string, string>> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
  word: "\\w",
  space: "\\t\\n\\v\\f\\r ",
};

/** Escapes whose meaning is the same in RE2 and in a JavaScript RegExp without the `u` flag. */
const SAME_ESCAPE = /^[bBdDsSwWtnrfv.\\/^$|?*+()[\]{}\-'"`=:!<>#&~@%,;_ ]$/;

export function translateRe2(re2: string): Translated {
  let flags = "";
  let i = 0;
  // Flags at the very start apply to the whole pattern, every alternative included.
  const leading = /^\(\?([is]+)\)/.exec(re2);
  if (leading !== null) {
    flags = [...new Set(leading[1])].sort().join("");
    i = leading[0].length;
  }
  let out = "";
  // For each open group, the modifier groups its inline flags opened, to close at its end.
  const pending: string[][] = [[]];
  let inClass = false;
  while (i < re2.length) {
    const ch = re2[i] ?? "";
    if (ch === "\\") {
      const next = re2[i + 1] ?? "";
      if (next === "x") {
        if (re2[i + 2] === "{") return { ok: false, why: "\\x{…} escape" };
        out += re2.slice(i, i + 4);
        i += 4;
        continue;
      }
      if (!inClass && next === "z") out += "$";
      else if (!inClass && next === "A") out += "^";
      else if (next === "p" || next === "P") return { ok: false, why: "Unicode class \\p" };
      else if (next === "Q") return { ok: false, why: "\\Q…\\E quoting" };
      else if (/^\d$/.test(next)) return { ok: false, why: "octal or back-reference escape" };
      else if (SAME_ESCAPE.test(next)) out += `\\${next}`;
      else return { ok: false, why: `escape \\${next}` };
      i += 2;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(re2.slice(i, i + 12));
      if (posix !== null) {
        const range = POSIX[posix[2] ?? ""];
        if (range === undefined || posix[1] === "^") return { ok: false, why: `class ${posix[0]}` };
        out += range;
        i += posix[0].length;
        continue;
      }
      if (ch === "]") inClass = false;
      out += ch;
      i++;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      i++;
      // A `]` first in a class is a literal, in RE2 as in JavaScript.
      if (re2[i] === "^") out += re2[i++];
      if (re2[i] === "]") out += `\\${re2[i++]}`;
      continue;
    }
    if (ch === "(") {
      const rest = re2.slice(i);
      const named = /^\(\?P?<([A-Za-z_]\w*)>/.exec(rest);
      // Flags alone, `(?i)`, or a group with flags, `(?i:…)` (a plain `(?:…)` among them).
      const flagged = /^\(\?([ims]*)(?:-([ims]+))?([):])/.exec(rest);
      if (named !== null) {
        out += `(?<${named[1]}>`;
        i += named[0].length;
        pending.push([]);
      } else if (flagged !== null) {
        if (flagged[0].includes("m")) return { ok: false, why: "multi-line flag" };
        i += flagged[0].length;
        if (flagged[3] === ":") {
          out += flagged[0];
          pending.push([]);
        } else {
          // The flag holds to the end of the enclosing group (RE2), as a modifier group does.
          const open = `(?${flagged[1]}${flagged[2] === undefined ? "" : `-${flagged[2]}`}:`;
          out += open;
          pending[pending.length - 1]?.push(open);
        }
      } else if (rest.startsWith("(?")) {
        return { ok: false, why: `group ${rest.slice(0, 4)}` };
      } else {
        out += ch;
        i++;
        pending.push([]);
      }
      continue;
    }
    if (ch === ")") {
      out += ")".repeat(pending.pop()?.length ?? 0);
      if (pending.length === 0) return { ok: false, why: "unbalanced )" };
      out += ch;
      i++;
      continue;
    }
    if (ch === "|") {
      // The flags hold in the next alternatives too: close the modifier groups, open them again.
      const open = pending[pending.length - 1] ?? [];
      out += `${")".repeat(open.length)}|${open.join("")}`;
      i++;
      continue;
    }
    if (/[*+?}]/.test(ch) && re2[i + 1] === "+") return { ok: false, why: "possessive quantifier" };
    out += ch;
    i++;
  }
  if (inClass || pending.length !== 1) return { ok: false, why: "unbalanced pattern" };
  out += ")".repeat(pending[0]?.length ?? 0);
  try {
    new RegExp(out, `${flags}dg`);
  } catch (e) {
    return { ok: false, why: `not a JavaScript pattern: ${(e as Error).message}` };
  }
  return { ok: true, source: out, flags };
}
