import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { prototypesOf, subsetOf } from "../../scripts/lib/confusables.ts";
import CONFUSABLES from "../../src/core/guardrails/confusables.json" with { type: "json" };

const SUBSET = resolve(import.meta.dirname, "../../src/core/guardrails/confusables.txt");

describe("the confusables the listing scan imports", () => {
  it("are a fresh conversion of the vendored subset of Unicode's confusables.txt (npm run confusables)", () => {
    expect(CONFUSABLES).toEqual(prototypesOf(readFileSync(SUBSET, "utf8")));
    expect(CONFUSABLES.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("keep only the mappings to ASCII name characters, and what NFKC does not fold already", () => {
    const published = [
      "# confusables.txt",
      "# Version: 99.0.0",
      "0441 ;\t0063 ;\tMA\t# ( с → c ) CYRILLIC SMALL LETTER ES → LATIN SMALL LETTER C\t#",
      "FF43 ;\t0063 ;\tMA\t# ( ｃ → c ) FULLWIDTH LATIN SMALL LETTER C → LATIN SMALL LETTER C\t#",
      "0431 ;\t0062 0304 ;\tMA\t# ( б → b̄ ) CYRILLIC SMALL LETTER BE → LATIN SMALL LETTER B, COMBINING MACRON\t#",
      "",
    ].join("\n");
    const subset = subsetOf(published);
    expect(subset).not.toContain("0431 ;");
    expect(prototypesOf(subset)).toEqual({ version: "99.0.0", prototypes: { "\u0441": "c" } });
  });
});
