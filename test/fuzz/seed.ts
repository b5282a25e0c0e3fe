import fc from "fast-check";

/**
 * Fixed seeds: a property run is reproducible, and a failure report's seed and path
 * replay it exactly (`fc.assert(..., { seed, path })`).
 */
export const FUZZ_SEED = 20_261_202;

fc.configureGlobal({ seed: FUZZ_SEED, endOnFailure: false });
