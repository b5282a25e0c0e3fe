import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { type JsonValue, parseStrictJson } from "../../src/core/json.ts";
import type { Refusal } from "../../src/core/reasons.ts";
import type { Result } from "../../src/core/result.ts";

const LIMITS = { maxDepth: 64 };

function parsed(text: string, limits = LIMITS): JsonValue {
  const result = parseStrictJson(text, limits);
  if (!result.ok)
    throw new Error(`expected ${JSON.stringify(text)} to parse: ${result.error.detail}`);
  return result.value;
}

function refusal(result: Result<unknown, Refusal>): Refusal {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  return result.error;
}

function refused(text: string, limits = LIMITS): Refusal {
  return refusal(parseStrictJson(text, limits));
}

const VALID = [
  "0",
  "-0",
  "1E-7",
  "1e308",
  "-1.5e+10",
  "0.1",
  "123456789012345678901234567890",
  "9007199254740993",
  "1e-400",
  "2.2250738585072014e-308",
  "true",
  "false",
  "null",
  '""',
  '"plain ascii"',
  '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
  '"\\u0000\\u001f\\u00e9\\u20AC\\uFFFF"',
  '"\\uD83D\\uDE00 and \\ud834\\udd1e"',
  '"raw 😀 é 𝄞 中文"',
  "[]",
  "{}",
  ' \t\r\n[ 1 , "two" , [ ] , { } , null ] \n',
  '{"a":{"b":[{"c":[true,false,null]}]},"":"empty key","ключ":-0.0}',
  '{"z":1,"a":2,"m":[3,{"y":4,"b":5}]}',
];

describe("parseStrictJson agrees with JSON.parse", () => {
  it.each(VALID)("parses %s to the same value as JSON.parse", (text) => {
    expect(parsed(text)).toEqual(JSON.parse(text));
    expect(JSON.stringify(parsed(text))).toBe(JSON.stringify(JSON.parse(text)));
  });

  it("keeps the sign of -0 and the exact value of 1E-7 and 1e308", () => {
    expect(Object.is(parsed("-0"), -0)).toBe(true);
    expect(Object.is((parsed("[-0.0]") as JsonValue[])[0], -0)).toBe(true);
    expect(parsed("1E-7")).toBe(1e-7);
    expect(parsed("1e308")).toBe(1e308);
  });

  it("decodes escaped and raw surrogate pairs to the same astral character", () => {
    expect(parsed('"\\uD83D\\uDE00"')).toBe("😀");
    expect(parsed('"😀"')).toBe("😀");
  });

  it("agrees with JSON.parse on generated documents", () => {
    const banned = /"(__proto__|constructor|prototype)":/;
    const doc = fc.json({ maxDepth: 6 }).filter((text) => !banned.test(text));
    fc.assert(
      fc.property(doc, (text) => {
        expect(parsed(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseStrictJson refuses malformed text", () => {
  it.each([
    ["empty input", ""],
    ["whitespace only", " \n"],
    ["an unclosed object", '{"a":1'],
    ["a trailing comma in an array", "[1,]"],
    ["a trailing comma in an object", '{"a":1,}'],
    ["a missing comma", "[1 2]"],
    ["a missing colon", '{"a" 1}'],
    ["an unquoted member name", "{a:1}"],
    ["a single-quoted string", "'a'"],
    ["a leading zero", "01"],
    ["a bare decimal point", "1."],
    ["a leading decimal point", ".5"],
    ["a plus sign", "+1"],
    ["a lone minus sign", "-"],
    ["an empty exponent", "1e"],
    ["NaN", "NaN"],
    ["Infinity", "-Infinity"],
    ["a truncated literal", "tru"],
    ["an unknown escape", '"\\x"'],
    ["a short unicode escape", '"\\u12"'],
    ["a raw tab in a string", '"a\tb"'],
    ["an unclosed string", '"abc'],
    ["a no-break space as whitespace", "\u00a01"],
    ["a byte order mark", "\ufeff{}"],
    ["a vertical tab as whitespace", "\v1"],
    ["trailing garbage", "{}x"],
    ["a second value", "1 2"],
  ])("refuses %s as malformed_payload with a character offset", (_, text) => {
    const r = refused(text);
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toMatch(/at character \d+/);
  });

  it("names the offset and what was expected", () => {
    expect(refused("[1,]").detail).toBe(
      'Expected a JSON value (object, array, string, number, true, false or null) at character 3, found "]".',
    );
    expect(refused('{"a":1} {').detail).toBe(
      'Expected end of input after the JSON value at character 8, found "{".',
    );
    expect(refused('{"a":1').detail).toBe(
      'Expected "," or "}" at character 6, found end of input.',
    );
  });
});

describe("parseStrictJson refuses what JSON.parse would hide", () => {
  it("refuses a duplicate member name and names the key and its path", () => {
    const text = '{"refund":{"items":[{"amount":1,"amount":1000}]}}';
    expect(JSON.parse(text).refund.items[0].amount).toBe(1000);
    const r = refused(text);
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toBe('Duplicate member name "amount" at path "refund.items.0.amount".');
  });

  it("refuses a duplicate spelled differently with escapes", () => {
    const r = refused('{"amount":1,"\\u0061mount":2}');
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain('"amount"');
  });

  it.each([
    ["a raw lone high surrogate", '"a\uD800b"'],
    ["a raw lone low surrogate", '"\uDC00"'],
    ["a raw pair in the wrong order", '"\uDE00\uD83D"'],
    ["an escaped lone high surrogate", '"\\uD800"'],
    ["an escaped lone low surrogate", '"\\uDC00"'],
    ["an escaped high surrogate before a non-surrogate", '"\\uD800\\u0041"'],
    ["an escaped pair in the wrong order", '"\\uDE00\\uD83D"'],
    ["a pair split between an escape and a raw unit", '"\\uD83D\uDE00"'],
    ["a lone surrogate in a member name", '{"\\uD800":1}'],
  ])("refuses %s", (_, text) => {
    const r = refused(text);
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain("lone surrogate");
  });

  it.each(["1e400", "-1e999", "[1.7976931348623159e308]"])(
    "refuses %s because it does not fit a finite double",
    (text) => {
      const r = refused(text);
      expect(r.reason).toBe("malformed_payload");
      expect(r.detail).toContain("finite");
    },
  );

  it.each([
    ["__proto__ at the top", '{"__proto__":{"admin":true}}', "__proto__"],
    ["constructor nested", '{"a":[{"constructor":{}}]}', "a.0.constructor"],
    ["prototype nested", '{"a":{"prototype":1}}', "a.prototype"],
    ["__proto__ spelled with an escape", '{"\\u005f_proto__":1}', "__proto__"],
  ])("refuses the member name %s", (_, text, path) => {
    const r = refused(text);
    expect(r.reason).toBe("malformed_payload");
    expect(r.detail).toContain(`path "${path}"`);
  });
});

describe("parseStrictJson builds prototype-free objects", () => {
  it("gives every object a null prototype, so no key reaches Object.prototype", () => {
    const value = parsed('{"a":{"b":[{}]}}') as { a: { b: object[] } };
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.getPrototypeOf(value.a)).toBeNull();
    expect(Object.getPrototypeOf(value.a.b[0])).toBeNull();
    expect("toString" in value).toBe(false);
  });

  it("serialises exactly like the JSON.parse result", () => {
    const text = '{"b":{"y":[1,{"z":"q"}],"x":2},"a":"s","e":{}}';
    expect(JSON.stringify(parsed(text))).toBe(text);
    expect(JSON.stringify(parsed(text), null, 2)).toBe(JSON.stringify(JSON.parse(text), null, 2));
  });

  it("is accepted by valibot strictObject, which still refuses unknown keys", () => {
    const schema = v.strictObject({ a: v.string(), b: v.strictObject({ x: v.number() }) });
    const good = v.safeParse(schema, parsed('{"a":"s","b":{"x":1}}'));
    expect(good.success).toBe(true);
    expect(good.output).toEqual({ a: "s", b: { x: 1 } });
    expect(v.safeParse(schema, parsed('{"a":"s","b":{"x":1},"c":0}')).success).toBe(false);
  });
});

describe("parseStrictJson limits nesting", () => {
  it("accepts nesting exactly at maxDepth and refuses one level more as payload_too_large", () => {
    expect(parsed("[[[1]]]", { maxDepth: 3 })).toEqual([[[1]]]);
    expect(parsed('{"a":{"b":{}}}', { maxDepth: 3 })).toEqual({ a: { b: {} } });
    expect(refused("[[[[1]]]]", { maxDepth: 3 }).reason).toBe("payload_too_large");
    expect(refused('{"a":{"b":{"c":{}}}}', { maxDepth: 3 }).reason).toBe("payload_too_large");
  });

  it("stops at the first bracket past the limit, before reading what follows", () => {
    const r = refused(`${"[".repeat(65)} not json at all`);
    expect(r.reason).toBe("payload_too_large");
    expect(r.detail).toBe("Nesting deeper than 64 levels at character 64.");
  });

  it("refuses 100 000 nested arrays without overflowing the stack", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(refused(deep).reason).toBe("payload_too_large");
  });

  it("parses 100 000 nested arrays when the limit allows it", () => {
    let node = parsed("[".repeat(100_000) + "]".repeat(100_000), { maxDepth: 100_000 });
    let depth = 0;
    while (Array.isArray(node)) {
      depth++;
      node = node[0] ?? null;
    }
    expect(depth).toBe(100_000);
  });
});
