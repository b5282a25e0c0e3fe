/**
 * `npm run confusables [-- path/to/confusables.txt]`: with a path to Unicode's published
 * confusables.txt (www.unicode.org/Public/security/<version>/), replace the vendored subset
 * src/core/guardrails/confusables.txt; then write src/core/guardrails/confusables.json, the
 * prototypes the listing scan imports. A test fails while the JSON is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { prototypesOf, subsetOf } from "./lib/confusables.ts";

const SUBSET = "src/core/guardrails/confusables.txt";
const OUT = "src/core/guardrails/confusables.json";

const published = process.argv[2];
if (published !== undefined) writeFileSync(SUBSET, subsetOf(readFileSync(published, "utf8")));
const data = prototypesOf(readFileSync(SUBSET, "utf8"));
writeFileSync(OUT, `${JSON.stringify(data, null, 2)}\n`);
process.stdout.write(
  `wrote ${OUT}: ${Object.keys(data.prototypes).length} prototypes of Unicode ${data.version}\n`,
);
