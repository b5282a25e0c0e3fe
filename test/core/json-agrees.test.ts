import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStrictJson } from "../../src/core/json.ts";
import { FUZZ_SEED } from "../fuzz/seed.ts";

const limits = { maxDepth: 64 };

/** Texts the strict parser must refuse although JSON.parse reads them. */
function strictRefuses(text: string): boolean {
  return (
    !text.isWellFormed() ||
    /\\u[dD][89a-fA-F]/.test(text) ||
    /"(__proto__|constructor|prototype)":/.test(text)
  );
}

describe("the strict JSON parser", () => {
  it("reads every JSON text JSON.stringify writes exactly as JSON.parse does", () => {
    const value = fc.jsonValue({ maxDepth: 6, stringUnit: "binary" });
    fc.assert(
      fc.property(value, fc.constantFrom("", " ", "\n\t"), (v, ws) => {
        const text = `${ws}${JSON.stringify(v, null, ws === "" ? undefined : 1)}${ws}`;
        fc.pre(!strictRefuses(text));
        const parsed = parseStrictJson(text, limits);
        expect(parsed).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { seed: FUZZ_SEED + 5, numRuns: 2_000 },
    );
  });

  it("refuses a lone surrogate, raw or escaped, wherever it sits in a string", () => {
    const around = fc.string({ maxLength: 40 });
    const lone = fc.constantFrom("\ud800", "\udfff", "\\ud800", "\\udc00", "\\ud800\\u0041");
    fc.assert(
      fc.property(around, lone, around, (a, s, b) => {
        const text = `{"k":${JSON.stringify(a).slice(0, -1)}${s}${JSON.stringify(b).slice(1)}}`;
        const parsed = parseStrictJson(text, limits);
        expect(parsed.ok).toBe(false);
      }),
      { seed: FUZZ_SEED + 6, numRuns: 500 },
    );
  });
});
