/**
 * Unicode's confusables (UTS #39, `confusables.txt`) for the skeleton of a tool's name. Only
 * the mappings whose prototype is ASCII letters, digits, `_` or `-` are kept: a tool name the
 * fence compares is such a string, so a character that reads as something else cannot make a
 * name read as another tool's. `subsetOf` cuts the published file down to those lines (the
 * vendored `src/core/guardrails/confusables.txt`); `prototypesOf` reads them into the map the
 * worker imports, leaving out what NFKC already folds to the same prototype.
 */

/** The map the worker imports. */
export interface Prototypes {
  /** The Unicode version of the data. */
  version: string;
  /** A character to the ASCII string it reads as. */
  prototypes: Record<string, string>;
}

const DATA_LINE = /^([0-9A-F]{4,6}) ;\t([0-9A-F ]+?) ;\t/;
const NAME_CHARS = /^[A-Za-z0-9_-]+$/;

const fromHex = (hex: string) =>
  hex
    .trim()
    .split(/\s+/)
    .map((h) => String.fromCodePoint(Number.parseInt(h, 16)))
    .join("");

function mappings(text: string): [string, string, string][] {
  return text.split("\n").flatMap((line) => {
    const m = DATA_LINE.exec(line);
    return m === null
      ? []
      : [[fromHex(m[1] ?? ""), fromHex(m[2] ?? ""), line] as [string, string, string]];
  });
}

/** The published file's header and the lines whose prototype a tool name can hold. */
export function subsetOf(published: string): string {
  const lines = published.split("\n");
  const body = lines.findIndex((l) => !l.startsWith("#"));
  const header = lines.slice(0, body < 0 ? lines.length : body);
  const kept = mappings(published).filter(([, to]) => NAME_CHARS.test(to));
  return `${[
    ...header,
    "# Subset kept by `npm run confusables`: the mappings whose prototype is ASCII letters,",
    "# digits, _ or -, the characters of a tool name.",
    "#",
    ...kept.map(([, , line]) => line),
  ].join("\n")}\n`;
}

/** The mappings of the subset, less those NFKC already folds to the same prototype. */
export function prototypesOf(subset: string): Prototypes {
  const version = /^# Version: (\S+)/m.exec(subset)?.[1];
  if (version === undefined) throw new Error("confusables.txt: no '# Version:' header line");
  const all = new Map(mappings(subset).map(([from, to]) => [from, to]));
  const prototypes: Record<string, string> = {};
  for (const [from, to] of all) {
    const nfkc = from.normalize("NFKC");
    const folded = [...nfkc].map((ch) => all.get(ch) ?? ch).join("");
    if (nfkc === from || folded !== to) prototypes[from] = to;
  }
  return { version, prototypes };
}
