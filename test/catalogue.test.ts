import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../demo/contracts/index.ts";
import { catalogue } from "../src/core/catalogue.ts";
import type { ToolContract } from "../src/core/contract.ts";
import { fromOpenAiStrictArgs, type JsonLikeObject } from "../src/core/openai-args.ts";
import { validateArgs } from "../src/core/validate.ts";

type Node = JsonLikeObject;

function tool(name: string): ToolContract {
  const found = CONTRACTS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no contract ${name}`);
  return found;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function node(value: unknown): Node {
  if (!isNode(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value;
}

function entries(format: "json" | "openai" | "anthropic"): Node[] {
  const tools = node(catalogue(CONTRACTS, format)).tools;
  if (!Array.isArray(tools)) throw new Error("tools is not an array");
  return tools.map(node);
}

function entry(format: "json" | "openai" | "anthropic", name: string): Node {
  const named = (e: Node): unknown => (format === "openai" ? node(e.function).name : e.name);
  const found = entries(format).find((e) => named(e) === name);
  if (found === undefined) throw new Error(`no ${format} entry ${name}`);
  return found;
}

/** Every schema object inside `schema` (itself included), with a readable location. */
function walk(schema: unknown, where = "$"): [string, Node][] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => walk(s, `${where}[${i}]`));
  if (!isNode(schema)) return [];
  const children = Object.entries(schema).flatMap(([k, child]) => walk(child, `${where}.${k}`));
  return [[where, schema], ...children];
}

const noteOnly = v.strictObject({ note: v.optional(v.nullable(v.string())) });
const NULLABLE: ToolContract = { ...tool("noop"), name: "nullable_note", input: noteOnly };

describe("catalogue: json", () => {
  it("publishes every contract with its runtime metadata", () => {
    const published = entries("json");
    expect(published.map((e) => e.name)).toEqual(CONTRACTS.map((c) => c.name));
    const logs = entry("json", "fetch_service_logs");
    expect(logs).toMatchObject({
      version: "v1",
      effect: "read",
      paid: true,
      timeout_ms: 4000,
      cache_ttl_seconds: 300,
    });
  });

  it("gives fetch_service_logs a draft 2020-12 schema with patterns, required keys and no extra keys", () => {
    const schema = node(entry("json", "fetch_service_logs").input_schema);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["service", "window"]);
    expect(schema.additionalProperties).toBe(false);
    const props = node(schema.properties);
    expect(node(props.service)).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 63,
      pattern: "^[a-z0-9-]+$",
      description: "Kubernetes service name: lowercase letters, digits and dashes",
    });
    expect(node(props.window).pattern).toBe("^[1-9][0-9]{0,2}[mh]$");
  });

  it("carries enums and defaults, and leaves optional keys out of required", () => {
    const schema = node(entry("json", "create_ticket").input_schema);
    expect(node(node(schema.properties).priority)).toMatchObject({
      enum: ["low", "normal", "high", "urgent"],
      default: "normal",
    });
    expect(schema.required).toEqual(["ticket_id"]);
  });

  it("closes every object in every input and output schema", () => {
    for (const published of entries("json")) {
      for (const side of ["input_schema", "output_schema"]) {
        for (const [where, s] of walk(published[side])) {
          if (s.type === "object") expect(s.additionalProperties, where).toBe(false);
        }
      }
    }
  });
});

describe("catalogue: anthropic", () => {
  it("has exactly name, description and an object input_schema per tool", () => {
    for (const published of entries("anthropic")) {
      expect(Object.keys(published).sort()).toEqual(["description", "input_schema", "name"]);
      const schema = node(published.input_schema);
      expect(schema.type).toBe("object");
      expect(schema.$schema).toBeUndefined();
    }
  });
});

describe("catalogue: openai", () => {
  it("marks every tool as a strict function", () => {
    for (const published of entries("openai")) {
      expect(published.type).toBe("function");
      expect(node(published.function).strict).toBe(true);
      expect(node(node(published.function).parameters).type).toBe("object");
    }
  });

  it("meets the strict-mode structural rules in every schema of every tool", () => {
    const banned = ["default", "minLength", "maxLength", "$schema", "allOf", "oneOf", "not"];
    for (const published of entries("openai")) {
      const parameters = node(published.function).parameters;
      expect(node(parameters).anyOf).toBeUndefined();
      for (const [where, s] of walk(parameters)) {
        // `properties` maps names to schemas; its own keys are not keywords.
        if (where.endsWith(".properties")) continue;
        for (const keyword of banned) expect(s[keyword], `${where}.${keyword}`).toBeUndefined();
        if (s.type !== "object") continue;
        expect(s.additionalProperties, where).toBe(false);
        expect([...(s.required as string[])].sort(), where).toEqual(
          Object.keys(node(s.properties)).sort(),
        );
      }
    }
  });

  it("expresses optional keys as unions with null and keeps patterns and enums", () => {
    const ticket = node(
      node(node(entry("openai", "create_ticket").function).parameters).properties,
    );
    expect(node(ticket.title).type).toEqual(["string", "null"]);
    expect(node(ticket.ticket_id).type).toBe("string");
    expect(node(ticket.priority).anyOf).toEqual([
      { enum: ["low", "normal", "high", "urgent"], type: "string" },
      { type: "null" },
    ]);
    expect(node(ticket.priority).description).toContain('default "normal"');
    const logs = node(
      node(node(entry("openai", "fetch_service_logs").function).parameters).properties,
    );
    expect(node(logs.service).pattern).toBe("^[a-z0-9-]+$");
    expect(node(logs.service).description).toContain("at most 63 characters");
  });
});

describe("catalogue: openai edge cases", () => {
  it("does not add a second null to a key that already accepts null", () => {
    const published = node(catalogue([NULLABLE], "openai")).tools as Node[];
    const parameters = node(node(published[0]?.function).parameters);
    const note = JSON.stringify(node(parameters.properties).note);
    expect(note.match(/"null"/g)).toHaveLength(1);
  });

  it("refuses to publish a tool whose input cannot be a strict-mode object", () => {
    const record: ToolContract = { ...NULLABLE, input: v.record(v.string(), v.string()) };
    expect(() => catalogue([record], "openai")).toThrow(/strict-mode form/);
    const scalar: ToolContract = { ...NULLABLE, input: v.string() };
    expect(() => catalogue([scalar], "openai")).toThrow(/object schema/);
  });
});

describe("catalogue: memoisation", () => {
  it("returns the same frozen object for the same tool list", () => {
    const first = catalogue(CONTRACTS, "openai");
    expect(catalogue(CONTRACTS, "openai")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(entries("openai")[0]?.function)).toBe(true);
  });

  it("builds a separate, equal catalogue for another list with the same tools", () => {
    const copy = [...CONTRACTS];
    expect(catalogue(copy, "json")).not.toBe(catalogue(CONTRACTS, "json"));
    expect(catalogue(copy, "json")).toEqual(catalogue(CONTRACTS, "json"));
  });
});

describe("fromOpenAiStrictArgs", () => {
  it("drops null optional keys so the gate applies defaults", () => {
    const ticket = tool("create_ticket");
    const sent = { ticket_id: "T-1", title: null, body: null, priority: null };
    const mapped = fromOpenAiStrictArgs(ticket, sent);
    expect(mapped).toEqual({ ticket_id: "T-1" });
    expect(sent.title).toBeNull();
    expect(validateArgs(ticket, mapped)).toEqual({
      ok: true,
      value: { ticket_id: "T-1", priority: "normal" },
    });
  });

  it("keeps a null on a required key, so the gate rejects it", () => {
    const logs = tool("fetch_service_logs");
    const mapped = fromOpenAiStrictArgs(logs, { service: null, window: "1h" });
    expect(mapped).toEqual({ service: null, window: "1h" });
    const result = validateArgs(logs, mapped);
    if (result.ok) throw new Error("expected the gate to refuse a null service");
    expect(result.error.issues?.map((i) => i.path)).toEqual(["service"]);
  });

  it("keeps a null the contract itself accepts", () => {
    expect(fromOpenAiStrictArgs(NULLABLE, { note: null })).toEqual({ note: null });
  });

  it("changes nothing else: unknown keys, wrong case and strings for numbers pass through", () => {
    const ticket = tool("create_ticket");
    const sent = { ticket_id: "T-1", priority: "HIGH", extra: null, title: "24" };
    expect(fromOpenAiStrictArgs(ticket, sent)).toEqual(sent);
    expect(validateArgs(ticket, fromOpenAiStrictArgs(ticket, sent)).ok).toBe(false);
  });

  it("keeps a __proto__ key as a key for the gate to refuse", () => {
    const sent = node(JSON.parse('{"__proto__": {"note": "x"}, "note": null}'));
    const mapped = fromOpenAiStrictArgs(tool("noop"), sent);
    expect(Object.keys(mapped)).toEqual(["__proto__"]);
    expect(validateArgs(tool("noop"), mapped).ok).toBe(false);
  });
});
