import * as v from "valibot";

/**
 * Checks of JSON Schema keywords that constrain an object as a whole (`allOf`, `if`/`then`/
 * `else`), for the input contracts of imported tools. Each check applies valibot schemas with
 * the keywords' meaning; the keywords themselves are published beside it with `v.metadata`, as
 * the server listed them, so the catalogue shows what the check enforces.
 */

/**
 * Marks such a check, so the catalogue publishes nothing for it beyond its metadata. The
 * catalogue (src/core/catalogue.ts) reads the same registered symbol: a check without it
 * still cannot be published, and building the catalogue fails on it.
 */
export const LISTED_KEYWORDS = Symbol.for("toolfence.listed-keywords");

/** A check that `test` holds, failing with the server's keyword named. */
export function keywordCheck<T>(keyword: string, test: (input: T) => boolean) {
  const check = v.check(test, `the arguments do not satisfy the server's "${keyword}"`);
  return Object.assign(check, { [LISTED_KEYWORDS]: keyword });
}
