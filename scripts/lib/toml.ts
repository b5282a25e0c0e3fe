/**
 * A reader for the part of TOML (v1.0.0) that gitleaks' rule files use: comments, `key = value`
 * pairs, `[table]` and `[[array.of.tables]]` headers, literal (`'…'`, `'''…'''`) and basic
 * (`"…"`) strings, numbers, booleans and arrays. Anything else is refused with its line, so a
 * new construct in an updated rule file is noticed rather than read wrongly.
 */

/** A TOML table. */
export type TomlTable = { [key: string]: TomlValue };
/** A TOML value. */
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

const BASIC_ESCAPES: Readonly<Record<string, string>> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  '"': '"',
  "\\": "\\",
};

/** Parse `text`; throws with the line number where it leaves the supported subset. */
export function parseToml(text: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  let i = 0;

  const fail = (what: string): never => {
    const line = text.slice(0, i).split("\n").length;
    throw new Error(`TOML line ${line}: ${what}`);
  };
  const skipBlank = (newlines: boolean) => {
    for (;;) {
      const ch = text[i];
      if (ch === " " || ch === "\t" || (newlines && (ch === "\n" || ch === "\r"))) i++;
      else if (ch === "#") while (i < text.length && text[i] !== "\n") i++;
      else return;
    }
  };
  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipBlank(false);
      const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 100));
      if (m === null) fail("expected a bare key");
      parts.push(m?.[0] ?? "");
      i += m?.[0].length ?? 0;
      skipBlank(false);
      if (text[i] !== ".") return parts;
      i++;
    }
  };
  const descend = (from: TomlTable, path: readonly string[], arrayLast: boolean): TomlTable => {
    let at = from;
    for (const [n, part] of path.entries()) {
      const last = n === path.length - 1;
      let next = at[part];
      if (last && arrayLast) {
        if (next === undefined) at[part] = next = [];
        if (!Array.isArray(next)) return fail(`${part} is not an array of tables`);
        const fresh: TomlTable = {};
        next.push(fresh);
        return fresh;
      }
      if (next === undefined) at[part] = next = {};
      // A dotted header names the last table of an array of tables (`[[rules.allowlists]]`).
      if (Array.isArray(next)) next = next[next.length - 1];
      if (typeof next !== "object" || next === null || Array.isArray(next)) {
        return fail(`${part} is not a table`);
      }
      at = next;
    }
    return at;
  };
  const value = (): TomlValue => {
    skipBlank(false);
    if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3);
      if (end < 0) fail("unterminated literal string");
      // A newline right after the opening delimiter is trimmed (TOML §String).
      const s = text.slice(i + 3, end).replace(/^\r?\n/, "");
      i = end + 3;
      return s;
    }
    if (text.startsWith('"""', i)) return fail("multi-line basic strings are not supported");
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0 || text.slice(i, end).includes("\n")) fail("unterminated literal string");
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    if (text[i] === '"') {
      let s = "";
      i++;
      while (text[i] !== '"') {
        const ch = text[i];
        if (ch === undefined || ch === "\n") return fail("unterminated string");
        if (ch === "\\") {
          const esc = text[i + 1] ?? "";
          if (esc === "u") {
            s += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          const plain = BASIC_ESCAPES[esc];
          if (plain === undefined) return fail(`unsupported escape \\${esc}`);
          s += plain;
          i += 2;
          continue;
        }
        s += ch;
        i++;
      }
      i++;
      return s;
    }
    if (text[i] === "[") {
      i++;
      const items: TomlValue[] = [];
      for (;;) {
        skipBlank(true);
        if (text[i] === "]") break;
        items.push(value());
        skipBlank(true);
        if (text[i] === ",") i++;
        else if (text[i] !== "]") fail("expected , or ] in an array");
      }
      i++;
      return items;
    }
    const m = /^(?:true|false|[+-]?\d+(?:\.\d+)?)/.exec(text.slice(i, i + 40));
    if (m === null) return fail("unsupported value");
    i += m[0].length;
    return m[0] === "true" ? true : m[0] === "false" ? false : Number(m[0]);
  };

  for (;;) {
    skipBlank(true);
    if (i >= text.length) return root;
    if (text.startsWith("[[", i)) {
      i += 2;
      const path = key();
      if (!text.startsWith("]]", i)) fail("expected ]]");
      i += 2;
      table = descend(root, path, true);
    } else if (text[i] === "[") {
      i++;
      const path = key();
      if (text[i] !== "]") fail("expected ]");
      i++;
      table = descend(root, path, false);
    } else {
      const path = key();
      if (text[i] !== "=") fail("expected =");
      i++;
      const v = value();
      const leaf = path[path.length - 1] ?? "";
      const at = descend(table, path.slice(0, -1), false);
      if (leaf in at) fail(`${leaf} defined twice`);
      at[leaf] = v;
    }
    skipBlank(false);
    if (i < text.length && text[i] !== "\n" && text[i] !== "\r") fail("expected the end of line");
  }
}
