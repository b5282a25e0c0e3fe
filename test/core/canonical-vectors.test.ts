import { describe, expect, it } from "vitest";
import { canonicalize } from "../../src/core/canonical.ts";

// The published vectors, as text: `?raw` keeps each file exactly as written.
const inputs = import.meta.glob<string>("../fixtures/jcs/*.in.json", {
  query: "?raw",
  import: "default",
  eager: true,
});
const outputs = import.meta.glob<string>("../fixtures/jcs/*.out.json", {
  query: "?raw",
  import: "default",
  eager: true,
});
const names = Object.keys(inputs).map((path) => path.replace(/^.*\/(.+)\.in\.json$/, "$1"));

describe("canonicalize against the RFC 8785 test vectors", () => {
  it("finds every published vector", () => {
    expect(names.sort()).toEqual(["arrays", "french", "structures", "unicode", "values", "weird"]);
  });

  it.each(names)("reproduces %s.out.json exactly", (name) => {
    const input = inputs[`../fixtures/jcs/${name}.in.json`] ?? "";
    const expected = outputs[`../fixtures/jcs/${name}.out.json`];
    expect(canonicalize(JSON.parse(input))).toBe(expected);
  });
});
