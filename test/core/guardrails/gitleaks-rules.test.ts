import { describe, expect, it } from "vitest";
import {
  expandFragments,
  findSecrets,
  SECRET_RULE_SET,
  shannonEntropy,
} from "../../../src/core/guardrails/secret-rules.ts";

// Values in the shapes of gitleaks' own examples (cmd/generate/config/rules/*.go), built at
// run time so no file holds a literal a secret scanner would stop at; none is a credential.
const alnum = (n: number) => "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC".repeat(8).slice(0, n);
const hex = (n: number) => "0123456789abcdef".repeat(8).slice(0, n);
const bech32 = (n: number) => "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".repeat(2).slice(0, n);

const ids = (text: string) => findSecrets(text).map((m) => m.what);

describe("gitleaks' rules", () => {
  it("are all patterns this runtime builds (RegExp modifiers included)", () => {
    const built = SECRET_RULE_SET.rules.filter((r) => {
      try {
        return new RegExp(expandFragments(r.regex), `${r.flags ?? ""}dg`) instanceof RegExp;
      } catch {
        return false;
      }
    });
    expect(built.length).toBe(SECRET_RULE_SET.rules.length);
    expect(SECRET_RULE_SET.rules.some((r) => r.regex.includes("(?-i:"))).toBe(true);
  });

  it.each([
    ["age-secret-key", `${"AGE-SECRET-"}KEY-1${bech32(58)}`],
    ["sendgrid-api-token", `token = ${"SG."}${alnum(22)}.${alnum(43)}`],
    ["huggingface-access-token", `HF_TOKEN=${"hf_"}${alnum(40).replace(/\d/g, "q").slice(0, 34)}`],
    ["twilio-api-key", `twilio ${"SK"}${hex(32)}`],
    ["shopify-access-token", `${"shpat_"}${hex(32)}`],
    ["linear-api-key", `${"lin_api_"}${alnum(40)}`],
    ["doppler-api-token", `${"dp.pt."}${alnum(43)}`],
    ["pypi-upload-token", `${"pypi-AgEIcHlwaS5vcmc"}${alnum(60)}`],
    ["slack-bot-token", `${"xoxb-"}781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD`],
  ])("finds %s", (id, text) => {
    expect(ids(text)).toContain(id);
  });

  it("reports the rule's secret group, not the key name and quotes around it", () => {
    const value = alnum(32).toLowerCase();
    const text = `ADAFRUIT_IO_KEY = "${value}"\n`;
    const [m] = findSecrets(text);
    expect(m).toEqual({
      kind: "secrets",
      what: "adafruit-api-key",
      start: text.indexOf(value),
      end: text.indexOf(value) + 32,
    });
  });

  it("runs a rule only where one of its keywords is", () => {
    const token = `pat${alnum(14)}.${hex(64)}`;
    expect(ids(token)).not.toContain("airtable-personnal-access-token");
    expect(ids(`airtable: ${token}`)).toContain("airtable-personnal-access-token");
  });

  it("keeps a secret only above its rule's entropy", () => {
    expect(ids(`${"sk_"}live_${"a".repeat(24)}`)).toEqual([]);
    expect(ids(`${"sk_"}live_${alnum(24)}`)).toEqual(["stripe-access-token"]);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBe(2);
  });

  it("drops what an allowlist takes for an example or a placeholder", () => {
    expect(ids(`${"AKIA"}${"IOSFODNN7EXAMPLE"}`)).toEqual([]);
    expect(ids(`${"AKIA"}${"LALEMEL33243OLIB"}`)).toEqual(["aws-access-token"]);
  });

  it.each([
    ["a UUID", "request 0b7f8c2e-2a51-4e8e-9d0a-3c1f5b6a7d8e done"],
    ["a git commit id", "fixed in 6980be5c2d1e4f0a9b8c7d6e5f4a3b2c1d0e9f8a"],
    ["a SHA-256 digest", `sha256:${hex(64)}`],
    ["base64 of plain text", btoa("The quick brown fox jumps over the lazy dog, twice, at noon.")],
    [
      "base64 of JSON",
      btoa(JSON.stringify({ ticket: 42, title: "Printer on fire", tags: ["hw"] })),
    ],
    ["a Stripe publishable key", `${"pk_"}live_${alnum(24)}`],
    ["a ticket with the word token", "The session token expired; ask the desk to reset it."],
    ["a semantic version and a path", "v8.30.0 at /usr/lib/node_modules/wrangler"],
  ])("does not take %s for a secret", (_what, text) => {
    expect(ids(text)).toEqual([]);
  });
});
