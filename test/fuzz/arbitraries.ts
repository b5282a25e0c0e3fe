import fc from "fast-check";
import { draftOf, encode, envelope, type FuzzCall, JSON_TYPE } from "./draft.ts";
import { MUTATIONS } from "./mutations.ts";
import { TOOLS } from "./tools.ts";

export type { FuzzCall } from "./draft.ts";

/**
 * Generators of proposed calls, shared by the property tests and `npm run fuzz`. Every
 * generated call knows whether it is valid: a valid call passes the contract gate (the
 * run may still refuse it), an invalid one must never be applied, whatever the run.
 */

const MODEL_PROSE = /^[A-Za-z][A-Za-z0-9 ,.!'?:-]{0,60}$/;

/** A call that keeps every contract. */
export const validCall: fc.Arbitrary<FuzzCall> = fc
  .constantFrom(...TOOLS)
  .chain(draftOf)
  .map((d) => encode(d, `valid:${d.form}`, true));

/** A valid mutation: what a runaway loop sends until the budget stops it. */
export const validMutation: fc.Arbitrary<FuzzCall> = fc
  .constantFrom(...TOOLS.filter((t) => t.mutates))
  .chain(draftOf)
  .map((d) => encode(d, `valid mutation:${d.form}`, true));

/** A valid call with exactly one thing made wrong. */
export const mutatedCall: fc.Arbitrary<FuzzCall> = fc
  .constantFrom(...TOOLS)
  .chain((t) => draftOf(t).chain((d) => fc.constantFrom(...MUTATIONS).chain((m) => m(d, t))))
  .map(([kind, d]) => encode(d, `mutated:${kind}`, false));

/** A canonical call's JSON text, valid, plus its tool. */
const callText = fc
  .constantFrom(...TOOLS)
  .chain(draftOf)
  .map((d) => ({
    tool: d.tool,
    json: JSON.stringify(envelope({ ...d, form: "canonical", keyInHeader: false })),
  }));

const fence = fc.constantFrom("```json\n", "```\n", "```JSON\n", "```javascript\n");
const prose = fc.oneof(
  fc.constantFrom("Here is the call:", "Let me know if you need anything else.", "Done!"),
  fc.stringMatching(MODEL_PROSE),
);

function textCall(kind: string, valid: boolean, tool: string, body: string): FuzzCall {
  return { kind: `text:${kind}`, valid, tool, contentType: "text/plain", headers: {}, body };
}

/** What a model writes around a call: fences, truncation, prose, two calls at once. */
export const modelText: fc.Arbitrary<FuzzCall> = fc.oneof(
  fc
    .tuple(callText, fence, fc.constantFrom("", "\n", "  \n"))
    .map(([c, f, ws]) => textCall("fenced", true, c.tool, `${ws}${f}${c.json}\n\`\`\`${ws}`)),
  callText.map((c) => textCall("bare", true, c.tool, c.json)),
  fc.tuple(callText, fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean()).map(([c, at, f]) => {
    const cut = c.json.slice(0, Math.floor(at * (c.json.length - 1)));
    return textCall("truncated", false, c.tool, f ? `\`\`\`json\n${cut}` : cut);
  }),
  fc
    .tuple(callText, prose, fc.boolean())
    .map(([c, p, f]) =>
      textCall(
        "trailing prose",
        false,
        c.tool,
        f ? `\`\`\`json\n${c.json}\n\`\`\`\n${p}` : `${c.json}\n${p}`,
      ),
    ),
  fc
    .tuple(callText, prose)
    .map(([c, p]) => textCall("leading prose", false, c.tool, `${p}\n${c.json}`)),
  fc
    .tuple(callText, callText)
    .map(([a, b]) => textCall("two objects", false, a.tool, `${a.json}\n${b.json}`)),
  callText.map((c) => textCall("JSON in a string", false, c.tool, JSON.stringify(c.json))),
);

/** True when `value` could be read as a call envelope; junk generators avoid those. */
function looksLikeCall(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && ("tool" in value || "type" in value);
  } catch {
    return false;
  }
}

/** Arbitrary JSON, arbitrary text and wrong media types. */
export const junk: fc.Arbitrary<FuzzCall> = fc
  .oneof(
    fc.jsonValue().map((v) => JSON.stringify(v) ?? "null"),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.constantFrom(
      "",
      "{}",
      "[]",
      "null",
      '{"tool":"noop","tool":"noop","args":{}}',
      '{"__proto__":{}}',
    ),
  )
  .filter((body) => !looksLikeCall(body) || body.includes('"tool":"noop","tool"'))
  .chain((body) =>
    fc
      .constantFrom<string | null>(JSON_TYPE, JSON_TYPE, "text/plain", "text/html", null)
      .map((contentType) => ({
        kind: "junk",
        valid: false,
        tool: null,
        contentType,
        headers: {},
        body,
      })),
  );

/** Valid calls wrapped in a wrong media type, oversized or nested too deep. */
export const envelopeAbuse: fc.Arbitrary<FuzzCall> = fc.oneof(
  validCall.map((c) => ({
    ...c,
    kind: "wrong media type",
    valid: false,
    contentType: "text/html",
  })),
  validCall.map((c) => ({ ...c, kind: "no media type", valid: false, contentType: null })),
  validCall
    .filter((c) => c.contentType === JSON_TYPE && c.body.startsWith('{"tool"'))
    .map((c) => ({
      ...c,
      kind: "oversized body",
      valid: false,
      body: `${c.body.slice(0, -1)},"pad":"${"p".repeat(70_000)}"}`,
    })),
  fc.integer({ min: 33, max: 200 }).map((depth) => ({
    kind: "nested too deep",
    valid: false,
    tool: "noop",
    contentType: JSON_TYPE,
    headers: {},
    body: `{"tool":"noop","args":{"note":${"[".repeat(depth)}${"]".repeat(depth)}}}`,
  })),
);

/** Every kind of call, weighted towards the illegal ones. */
export const fuzzCall: fc.Arbitrary<FuzzCall> = fc.oneof(
  { arbitrary: validCall, weight: 3 },
  { arbitrary: mutatedCall, weight: 6 },
  { arbitrary: modelText, weight: 3 },
  { arbitrary: junk, weight: 2 },
  { arbitrary: envelopeAbuse, weight: 1 },
);

/** A run's calls, about one in five a retry: an earlier call of the run sent again as is. */
export function runOfCalls(minLength: number, maxLength: number): fc.Arbitrary<FuzzCall[]> {
  const item = fc.tuple(fuzzCall, fc.integer({ min: 0, max: 9 }), fc.nat());
  return fc.array(item, { minLength, maxLength }).map((items) => {
    const calls: FuzzCall[] = [];
    for (const [call, roll, back] of items) {
      const earlier = roll < 2 ? calls[back % Math.max(1, calls.length)] : undefined;
      calls.push(earlier === undefined ? call : { ...earlier, kind: `retry of ${earlier.kind}` });
    }
    return calls;
  });
}
