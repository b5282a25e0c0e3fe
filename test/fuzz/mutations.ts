import fc from "fast-check";
import type { Draft } from "./draft.ts";
import { BAD_KEYS, type FieldSpec, nearMissKey, nearMissTool, type ToolSpec } from "./tools.ts";

/** One way to make a valid call invalid; it returns a label and the changed draft. */
type Mutation = (d: Draft, tool: ToolSpec) => fc.Arbitrary<[string, Draft]>;

function args(d: Draft): Record<string, unknown> {
  return d.args as Record<string, unknown>;
}

function pickField(tool: ToolSpec, required = false): fc.Arbitrary<FieldSpec> {
  const fields = tool.fields.filter((f) => f.required || !required);
  return fc.constantFrom(...(fields.length > 0 ? fields : tool.fields));
}

/** Every mutation turns a valid call into one the contract refuses, whatever its form. */
export const MUTATIONS: readonly Mutation[] = [
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
