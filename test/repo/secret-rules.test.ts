import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseToml, type TomlTable } from "smol-toml";
import { describe, expect, it } from "vitest";
import { translateRe2 } from "../../scripts/lib/re2-to-js.ts";
import { secretRuleFiles } from "../../scripts/lib/secret-rules.ts";
import { expandFragments, SECRET_RULE_SET } from "../../src/core/guardrails/secret-rules.ts";

describe("the secret rule module", () => {
  it("is a fresh conversion of the vendored gitleaks rules and the fence's own (npm run secret-rules)", () => {
    expect(SECRET_RULE_SET).toEqual(secretRuleFiles());
  });

  it("leaves out only the rules it names, each with its reason", () => {
    const { rules, leftOut } = secretRuleFiles();
    // Printed so a rule set update shows what it did not take.
    console.log(leftOut.map((d) => `left out ${d.id}: ${d.why}`).join("\n"));
    expect(leftOut.map((d) => d.id).sort()).toEqual(["generic-api-key", "pkcs12-file"]);
    expect(rules.length).toBeGreaterThan(200);
    expect(rules.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        "private-key",
        "jwt",
        "github-pat",
        "aws-access-token",
        "url-password",
      ]),
    );
  });

  it("writes the parts patterns share by name, and each expands to the rule's translation", () => {
    const toml = readFileSync(
      resolve(import.meta.dirname, "../../src/core/guardrails/gitleaks.toml"),
      "utf8",
    );
    const upstream = new Map(
      (parseToml(toml).rules as TomlTable[]).map((r) => [r.id as string, r.regex as string]),
    );
    const shortened = SECRET_RULE_SET.rules.filter((r) => r.regex.includes("(?&"));
    expect(shortened.length).toBeGreaterThan(100);
    for (const rule of shortened) {
      const t = translateRe2(upstream.get(rule.id) ?? "");
      expect(t.ok && t.source).toBe(expandFragments(rule.regex));
    }
  });

  it("keeps no description in the worker's bundle", () => {
    expect(JSON.stringify(SECRET_RULE_SET)).not.toContain('"description"');
  });
});

describe("Go RE2 to JavaScript", () => {
  const js = (re2: string) => {
    const t = translateRe2(re2);
    return t.ok ? { source: t.source, flags: t.flags } : t.why;
  };

  it("makes a leading flag a flag and a later one a modifier group to the end of its group", () => {
    expect(js("(?i)abc")).toEqual({ source: "abc", flags: "i" });
    expect(js("\\b(p8e-(?i)[a-z]{4})x")).toEqual({ source: "\\b(p8e-(?i:[a-z]{4}))x", flags: "" });
  });

  it("keeps an inline flag on every later alternative of its group", () => {
    const t = js("(a(?i)b|c)d");
    expect(t).toEqual({ source: "(a(?i:b)|(?i:c))d", flags: "" });
    const re = new RegExp((t as { source: string }).source);
    expect(re.test("aBd")).toBe(true);
    expect(re.test("Cd")).toBe(true);
    expect(re.test("ABd")).toBe(false);
  });

  it("translates named groups, \\z and POSIX classes", () => {
    expect(js("(?P<x>a)\\z")).toEqual({ source: "(?<x>a)$", flags: "" });
    expect(js("[[:alnum:]]{2}")).toEqual({ source: "[a-zA-Z0-9]{2}", flags: "" });
    expect(js("[]a]")).toEqual({ source: "[\\]a]", flags: "" });
  });

  it("refuses what has no faithful translation", () => {
    expect(js("\\pL+")).toBe("Unicode class \\p");
    expect(js("\\Qa.b\\E")).toBe("\\Q…\\E quoting");
    expect(js("(?m)^a$")).toBe("multi-line flag");
    expect(js("a(b")).toBe("unbalanced pattern");
  });
});
