import fc from "fast-check";
import {
  BAD_KEYS,
  type FieldSpec,
  KEY_POOL,
  nearMissKey,
  nearMissTool,
  TOOLS,
  type ToolSpec,
  validArgs,
} from "./tools.ts";

/**
 * Generators of proposed calls, shared by the property tests and `npm run fuzz`. Every
 * generated call knows whether it is valid: a valid call passes the contract gate (the
 * run may still refuse it), an invalid one must never be applied, whatever the run.
 */

/** One generated HTTP call. */
export interface FuzzCall {
  /** Which generator made it, for reports and failing examples. */
  kind: string;
  /** Whether the call keeps every contract; invalid calls must never be applied. */
  valid: boolean;
  /** The tool it names (or nearly names), or null for junk. */
  tool: string | null;
  /** Content-Type header, or null to send none. */
  contentType: string | null;
  /** Extra request headers. */
  headers: Record<string, string>;
  /** Body text. */
  body: string;
}

/** The shapes a call can arrive in (src/core/body.ts). */
type Form = "canonical" | "openai" | "anthropic" | "text";

/** A call before it is encoded: mutated members are written over the valid ones. */
interface Draft {
  tool: string;
  args: unknown;
  key: unknown;
  form: Form;
  keyInHeader: boolean;
  extra: Record<string, unknown>;
}

const JSON_TYPE = "application/json";
const MODEL_PROSE = /^[A-Za-z][A-Za-z0-9 ,.!'?:-]{0,60}$/;

function draftOf(tool: ToolSpec): fc.Arbitrary<Draft> {
  return fc.record({
    tool: fc.constant(tool.name),
    args: validArgs(tool),
    key: tool.mutates ? fc.constantFrom(...KEY_POOL) : fc.constant(undefined),
    form: fc.constantFrom<Form>("canonical", "canonical", "openai", "anthropic", "text"),
    keyInHeader: fc.boolean(),
    extra: fc.constant({}),
  });
}

/** The envelope of a draft in its form; text bodies carry the canonical form. */
function envelope(d: Draft): Record<string, unknown> {
  const bodyKey = d.key === undefined || d.keyInHeader ? {} : { idempotency_key: d.key };
  if (d.form === "openai") {
    const fn = { name: d.tool, arguments: JSON.stringify(d.args) };
    return { type: "function", id: "call_1", function: fn, ...d.extra };
  }
  if (d.form === "anthropic") {
    return { type: "tool_use", id: "toolu_1", name: d.tool, input: d.args, ...d.extra };
  }
  return { tool: d.tool, args: d.args, ...bodyKey, ...d.extra };
}

/** Keys of the body forms that cannot carry one travel in the header. */
function encode(d: Draft, kind: string, valid: boolean): FuzzCall {
  const inHeader = d.keyInHeader || d.form === "openai" || d.form === "anthropic";
  const headers: Record<string, string> =
    inHeader && typeof d.key === "string" ? { "Idempotency-Key": d.key } : {};
  const body = JSON.stringify(envelope({ ...d, keyInHeader: inHeader }));
  const contentType = d.form === "text" ? "text/plain" : JSON_TYPE;
  return { kind, valid, tool: d.tool, contentType, headers, body };
}

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

type Mutation = (d: Draft, tool: ToolSpec) => fc.Arbitrary<[string, Draft]>;

function args(d: Draft): Record<string, unknown> {
  return d.args as Record<string, unknown>;
}

function pickField(tool: ToolSpec, required = false): fc.Arbitrary<FieldSpec> {
  const fields = tool.fields.filter((f) => f.required || !required);
  return fc.constantFrom(...(fields.length > 0 ? fields : tool.fields));
}

/** Every mutation turns a valid call into one the contract refuses, whatever its form. */
const MUTATIONS: readonly Mutation[] = [
  (d) => nearMissTool(d.tool).map((tool) => ["near-miss tool", { ...d, tool }]),
  (d, t) =>
    pickField(t).chain((f) =>
      f.nearMisses.map((v) => [`near-miss ${f.name}`, { ...d, args: { ...args(d), [f.name]: v } }]),
    ),
  (d, t) =>
    pickField(t).chain((f) =>
      // null only for required members: OpenAI strict mode sends null for an absent optional.
      fc
        .constantFrom<unknown>(24, true, [f.name], { value: "x" }, ...(f.required ? [null] : []))
        .map((v) => [`wrong type ${f.name}`, { ...d, args: { ...args(d), [f.name]: v } }]),
    ),
  (d, t) =>
    pickField(t).chain((f) =>
      fc.integer({ min: 1, max: 200 }).map((over) => {
        const v = "x".repeat(f.maxLength + over);
        return [`oversized ${f.name}`, { ...d, args: { ...args(d), [f.name]: v } }];
      }),
    ),
  (d, t) =>
    fc
      .oneof(
        pickField(t).chain((f) => nearMissKey(f.name)),
        fc.constantFrom("extra", "__meta"),
      )
      .filter((k) => !t.fields.some((f) => f.name === k))
      .map((k) => [`extra key ${k}`, { ...d, args: { ...args(d), [k]: "x" } }]),
  (d) =>
    fc
      .constantFrom("extra", "Tool", "arguments", "parameters", "metadata")
      .map((k) => [`extra envelope key ${k}`, { ...d, extra: { [k]: 1 } }]),
  (d, t) => {
    const required = t.fields.filter((f) => f.required);
    if (required.length === 0) return fc.constant(["args as list", { ...d, args: [d.args] }]);
    return fc.constantFrom(...required).map((f) => {
      const { [f.name]: _, ...rest } = args(d);
      return [`missing ${f.name}`, { ...d, args: rest }];
    });
  },
  (d) =>
    fc
      .constantFrom<[string, unknown]>(
        ["args as list", [d.args]],
        ["args as JSON string", JSON.stringify(d.args)],
        ["args null", null],
      )
      .map(([kind, a]) => [kind, { ...d, args: a }]),
  (d) =>
    BAD_KEYS.map((key) => [
      "bad idempotency key",
      { ...d, key, keyInHeader: false, form: d.form === "text" ? "text" : "canonical" },
    ]),
  (d, t) =>
    t.mutates
      ? fc.constant(["mutation without key", { ...d, key: undefined }])
      : fc.constant(["args as list", { ...d, args: [d.args] }]),
];

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
export function session(minLength: number, maxLength: number): fc.Arbitrary<FuzzCall[]> {
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
