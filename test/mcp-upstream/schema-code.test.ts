import { describe, expect, it } from "vitest";
import { schemaCode } from "../../scripts/lib/mcp/schema-code.ts";

describe("JSON Schema to valibot source", () => {
  it("translates bounds, patterns, enums and formats into exact checks", () => {
    const made = schemaCode(
      {
        type: "object",
        properties: {
          id: { type: "string", pattern: "^T-[0-9]+$", maxLength: 16 },
          count: { type: "integer", minimum: 1, exclusiveMaximum: 100 },
          level: { type: "string", enum: ["low", "high"] },
          mail: { type: "string", format: "email" },
          tags: { type: "array", items: { type: "string" }, maxItems: 5 },
        },
        required: ["id"],
        additionalProperties: false,
      },
      "t",
    );
    expect(made).toEqual({
      ok: true,
      code: `v.strictObject({
  "id": v.pipe(v.string(), v.maxLength(16), v.regex(new RegExp("^T-[0-9]+$"))),
  "count": v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.ltValue(100))),
  "level": v.optional(v.picklist(["low","high"])),
  "mail": v.optional(v.pipe(v.string(), v.email())),
  "tags": v.optional(v.pipe(v.array(v.string()), v.maxLength(5))),
})`,
    });
  });

  it("refuses what it cannot enforce exactly, naming each path, never loosening it", () => {
    const made = schemaCode(
      {
        type: "object",
        properties: {
          any: {},
          ref: { $ref: "#/$defs/x" },
          both: { allOf: [{ type: "string" }] },
          odd: { type: "string", format: "hostname-ish" },
          set: { type: "array", items: { type: "number" }, uniqueItems: true },
        },
        patternProperties: { "^x-": { type: "string" } },
      },
      "t.input",
    );
    expect(made.ok).toBe(false);
    expect(made.ok ? [] : made.problems).toEqual([
      't.input: "patternProperties" on a object cannot be enforced exactly',
      't.input.any: no single known "type" (undefined): it would accept any value',
      't.input.ref: "$ref" "#/$defs/x" names no definition of the schema\'s own "$defs"',
      't.input.both: "allOf" is enforced only on an object schema ("type": "object")',
      't.input.odd: format "hostname-ish" has no exact check',
      't.input.set: "uniqueItems" on a array cannot be enforced exactly',
    ]);
  });

  it("keeps an open map as a record and refuses extra keys next to named ones", () => {
    expect(schemaCode({ type: "object", additionalProperties: { type: "number" } }, "m")).toEqual({
      ok: true,
      code: "v.record(v.string(), v.number())",
    });
    const mixed = schemaCode(
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: true },
      "m",
    );
    expect(mixed).toEqual({
      ok: false,
      problems: ["m: extra properties next to named ones cannot be enforced exactly"],
    });
  });

  it("refuses the keys valibot never reads, rather than pass them unchecked", () => {
    const props = JSON.parse(
      '{"__proto__": {"type": "string"}, "constructor": {"type": "number"}}',
    );
    expect(schemaCode({ type: "object", properties: props }, "k")).toEqual({
      ok: false,
      problems: [
        'k: a key named "__proto__" cannot be enforced',
        'k: a key named "constructor" cannot be enforced',
      ],
    });
  });

  it("writes the server's text as escaped literals, line separators included", () => {
    const made = schemaCode(
      { type: "string", description: "a */ b\u2028c", const: "`$" + "{x}`" },
      "s",
    );
    expect(made).toEqual({
      ok: true,
      code: `v.pipe(v.literal("\`$\{x}\`"), v.description("a */ b\\u2028c"))`,
    });
  });
});
