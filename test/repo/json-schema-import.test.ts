import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { keywordCheck } from "../../contracts/json-schema.ts";
import { renderContract } from "../../scripts/lib/mcp/contract-file.ts";
import { schemaCode } from "../../scripts/lib/mcp/schema-code.ts";
import { catalogue } from "../../src/core/catalogue.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { SCHEMA_2020_12 } from "../e2e/conformance-server.ts";

/** The valibot schema an import writes for `schema`, evaluated as the contract file would be. */
function imported(schema: unknown): v.GenericSchema {
  const made = schemaCode(schema, "t.inputSchema");
  if (!made.ok) throw new Error(made.problems.join("\n"));
  // The generated text is the contract file's expression, built from literals only.
  return new Function("v", "keywordCheck", `return ${made.code}`)(v, keywordCheck);
}

/** Whether a JSON Schema 2020-12 validator (the MCP SDK's, which interprets) accepts `value`. */
function validates(schema: unknown, value: unknown): boolean {
  const validator = new CfWorkerJsonSchemaValidator().getValidator(schema as never);
  return validator(value).valid;
}

const contract = (input: v.GenericSchema): ToolContract =>
  ({
    name: "t",
    description: "t",
    effect: "read",
    paid: false,
    input,
    output: v.strictObject({}),
    timeoutMs: 1000,
    cacheTtlSeconds: 0,
    sharedCache: false,
    upstream: { kind: "inline", run: () => ({}) },
  }) as unknown as ToolContract;

describe("JSON Schema 2020-12 keywords in an imported tool's input", () => {
  // Objects of the suite's tool: its $ref'd address, allOf of anyOf of required keys, and
  // if/then/else on contactMethod, each also judged by a real JSON Schema validator.
  const objects = [
    {},
    { phone: "1" },
    { email: "a@b" },
    { name: "x" },
    { contactMethod: "phone", phone: "1" },
    { contactMethod: "phone", email: "a@b" },
    { contactMethod: "email", email: "a@b" },
    { contactMethod: "email", phone: "1" },
    { email: "a@b", address: { city: "Oslo", street: "Gate 1" } },
    { email: "a@b", address: { city: 7 } },
    { email: "a@b", contactMethod: "fax" },
    { email: "a@b", extra: true },
  ];

  it("accepts exactly what the server's schema accepts (extra keys refused, as ever)", () => {
    const schema = imported(SCHEMA_2020_12);
    for (const value of objects) {
      expect(v.is(schema, value), JSON.stringify(value)).toBe(validates(SCHEMA_2020_12, value));
    }
  });

  it("names the keyword an argument object fails", () => {
    const failed = v.safeParse(imported(SCHEMA_2020_12), { name: "x" });
    expect(failed.success).toBe(false);
    expect(failed.issues?.map((i) => i.message)).toEqual([
      `the arguments do not satisfy the server's "allOf[0]"`,
      `the arguments do not satisfy the server's "if/then/else"`,
    ]);
  });

  it("publishes the keywords and definitions as the server listed them", () => {
    const { tools } = catalogue([contract(imported(SCHEMA_2020_12))], "json") as {
      tools: { input_schema: Record<string, unknown> }[];
    };
    const published = tools[0]?.input_schema ?? {};
    for (const key of ["allOf", "if", "then", "else", "$defs"] as const) {
      expect(published[key], key).toEqual(SCHEMA_2020_12[key]);
    }
    expect(published.additionalProperties).toBe(false);
    expect(published.$schema).toBe(SCHEMA_2020_12.$schema);
  });

  it("writes prefixItems as a tuple, a required key with no schema as the schema means it", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        pair: { type: "array", prefixItems: [{ type: "string" }, { const: 2 }], items: false },
      },
      required: ["pair", "tag"],
    };
    // With no other keys allowed, a required key no property describes can never be there.
    const closed = { ...schema, additionalProperties: false };
    expect(v.is(imported(closed), { pair: ["a", 2], tag: 1 })).toBe(false);
    expect(validates(closed, { pair: ["a", 2], tag: 1 })).toBe(false);
    const made = imported(schema);
    for (const value of [
      { pair: ["a", 2], tag: null },
      { pair: ["a", 2, 3], tag: 1 },
      { pair: ["a", 3], tag: 1 },
      { pair: ["a", 2] },
    ]) {
      expect(v.is(made, value), JSON.stringify(value)).toBe(validates(schema, value));
    }
  });

  it("refuses a recursive or foreign $ref and a keyword beside one, naming each", () => {
    const made = schemaCode(
      {
        type: "object",
        $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
        properties: {
          list: { $ref: "#/$defs/node" },
          far: { $ref: "https://example.com/s.json" },
          wide: { $ref: "#/$defs/node", maxProperties: 3 },
        },
      },
      "t",
    );
    expect(made.ok ? [] : made.problems).toEqual([
      't.list.next: "$ref" "#/$defs/node" is recursive, which has no exact check',
      't.far: "$ref" "https://example.com/s.json" names no definition of the schema\'s own "$defs"',
      't.wide: "maxProperties" beside "$ref" cannot be enforced exactly',
    ]);
  });
});

describe("an imported tool's output with JSON Schema keywords", () => {
  it("imports their checks in the contract file, as for the input", () => {
    const rendered = renderContract(
      {
        name: "lookup",
        description: "Look up",
        inputSchema: { type: "object", properties: {} },
        outputSchema: {
          type: "object",
          properties: { a: { type: "string" }, b: { type: "string" } },
          allOf: [{ anyOf: [{ required: ["a"] }, { required: ["b"] }] }],
        },
      },
      { source: "https://mcp.example/mcp", prefix: "", endpoint: { urlVar: "MCP_SERVER_URL" } },
    );
    if (!rendered.ok) throw new Error(rendered.problems.join("\n"));
    expect(rendered.text).toContain("keywordCheck(");
    expect(rendered.text).toContain('import { keywordCheck } from "./json-schema.ts";');
  });
});
