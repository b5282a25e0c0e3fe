import { describe, expect, it } from "vitest";
import { cacheKey, canonicalize } from "../../src/core/canonical.ts";

describe("canonicalize refuses what RFC 8785 cannot represent", () => {
  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
    ["a non-finite number inside an object", { window: Number.NaN }],
    ["a non-finite number inside an array", [1, Number.POSITIVE_INFINITY]],
  ])("throws on %s (RFC 8785 §3.2.2.3: only IEEE 754 finite numbers)", (_label, value) => {
    expect(() => canonicalize(value)).toThrow();
  });

  it.each([
    ["a lone high surrogate", "\ud800"],
    ["a lone low surrogate", "x\udc00y"],
    ["a lone surrogate in a nested value", { logs: ["ok", "\udbff"] }],
    ["a lone surrogate in a property name", { "\ud83d": 1 }],
  ])("throws on %s (RFC 8785 §3.2.2.2: strings are well-formed Unicode)", (_label, value) => {
    expect(() => canonicalize(value)).toThrow();
  });

  it("still accepts a surrogate pair", () => {
    expect(canonicalize({ s: "\ud83d\ude02" })).toBe('{"s":"😂"}');
  });

  it("gives no cache key to arguments it cannot canonicalize", async () => {
    const key = cacheKey({ tool: "t", version: "v1", args: { n: Number.NaN }, tenant: null });
    await expect(key).rejects.toThrow();
  });
});
