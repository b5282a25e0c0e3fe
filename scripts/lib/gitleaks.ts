/**
 * gitleaks rule files (TOML) to the data the `secrets` result rule runs: each rule's pattern
 * translated from Go RE2 to JavaScript, with its id, secret group, entropy, keywords and the
 * regex and stopword parts of its allowlists. Descriptions, tags and path allowlists are not
 * kept (a tool's answer has no path). A rule that cannot be translated faithfully, or is left
 * out on purpose, is listed with the reason.
 */

import { parse as parseToml, type TomlTable, type TomlValue } from "smol-toml";
import type {
  AllowlistData,
  PatternData,
  SecretRuleData,
  SecretRuleSet,
} from "../../src/core/guardrails/secret-rules.ts";
import { translateRe2 } from "./re2-to-js.ts";

/**
 * Rules left out on purpose. `generic-api-key` finds any value after a word such as `key`,
 * `token` or `auth`, not a format: in tool results (configuration listings, logs, API
 * payloads) it would redact ordinary identifiers, and its stopword list alone is some 1,500
 * words of the worker's bundle.
 */
const LEFT_OUT: Readonly<Record<string, string>> = {
  "generic-api-key": "keyword and any value, not a format: too many false positives in results",
};

/**
 * Parts of gitleaks' generated patterns that most rules share (`key = "value"` around a
 * provider's name, and the end of a token), written `(?&name)` in the converted patterns and
 * kept once: they are some 10 KiB of the worker's bundle otherwise. `(?&` is a group neither
 * RE2 nor JavaScript accepts, so it never stands for itself.
 */
const FRAGMENTS: Readonly<Record<string, string>> = {
  assign: "(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}",
  end: "(?:[\\x60'\"\\s;]|\\\\[nr]|$)",
};

/** The rules with the shared parts written by name. */
function withFragments(rules: readonly SecretRuleData[]): SecretRuleData[] {
  return rules.map((r) => {
    let regex = r.regex;
    for (const [name, part] of Object.entries(FRAGMENTS))
      regex = regex.replaceAll(part, `(?&${name})`);
    return { ...r, regex };
  });
}

class Refused extends Error {}

function strings(v: TomlValue | undefined, what: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw new Refused(`${what} is not a list of strings`);
  }
  return v as string[];
}

function pattern(re2: string): PatternData {
  const t = translateRe2(re2);
  if (!t.ok) throw new Refused(`${t.why} in ${re2.length > 60 ? `${re2.slice(0, 60)}…` : re2}`);
  return t.flags === "" ? { regex: t.source } : { regex: t.source, flags: t.flags };
}

/** An allowlist's text checks; null when it cannot apply to text without a path. */
function allowlistOf(a: TomlTable): AllowlistData | null {
  const paths = strings(a.paths, "paths");
  const regexes = strings(a.regexes, "regexes").map(pattern);
  const stopwords = strings(a.stopwords, "stopwords").map((w) => w.toLowerCase());
  if (a.commits !== undefined && a.condition === "AND") return null;
  // Under AND every part must hold, and a path cannot.
  if (paths.length > 0 && a.condition === "AND") return null;
  if (regexes.length === 0 && stopwords.length === 0) return null;
  const target = a.regexTarget ?? "secret";
  if (target !== "secret" && target !== "match" && target !== "line") {
    throw new Refused(`regexTarget ${String(target)}`);
  }
  return {
    ...(target === "secret" ? {} : { target }),
    ...(regexes.length > 0 ? { regexes } : {}),
    ...(stopwords.length > 0 ? { stopwords } : {}),
  };
}

function ruleOf(r: TomlTable): SecretRuleData {
  const id = r.id;
  if (typeof id !== "string") throw new Refused("no id");
  if (typeof r.regex !== "string") throw new Refused("no regex (a path-only rule)");
  if (r.required !== undefined) throw new Refused("a multi-part rule (required)");
  const allowlists = (Array.isArray(r.allowlists) ? (r.allowlists as TomlTable[]) : [])
    .map(allowlistOf)
    .filter((a) => a !== null);
  const secretGroup = typeof r.secretGroup === "number" ? r.secretGroup : undefined;
  const entropy = typeof r.entropy === "number" ? r.entropy : undefined;
  return {
    id,
    ...pattern(r.regex),
    ...(secretGroup === undefined ? {} : { secretGroup }),
    ...(entropy === undefined ? {} : { entropy }),
    keywords: [...new Set(strings(r.keywords, "keywords").map((k) => k.toLowerCase()))],
    ...(allowlists.length > 0 ? { allowlists } : {}),
  };
}

/** Merge two allowlists' text checks into one. */
function merged(a: AllowlistData, b: AllowlistData): AllowlistData {
  return {
    regexes: [...(a.regexes ?? []), ...(b.regexes ?? [])],
    stopwords: [...(a.stopwords ?? []), ...(b.stopwords ?? [])],
  };
}

/**
 * Convert rule files in order; a later file's rule replaces an earlier one's of the same id.
 * `source` names where the rules come from.
 */
export function convertRuleFiles(texts: readonly string[], source: string): SecretRuleSet {
  const leftOut: SecretRuleSet["leftOut"][number][] = [];
  const byId = new Map<string, SecretRuleData>();
  let allowlist: AllowlistData = {};
  for (const text of texts) {
    const file = parseToml(text);
    const global = file.allowlist;
    if (typeof global === "object" && !Array.isArray(global) && !(global instanceof Date)) {
      allowlist = merged(allowlist, allowlistOf(global as TomlTable) ?? {});
    }
    const rules = Array.isArray(file.rules) ? (file.rules as TomlTable[]) : [];
    for (const r of rules) {
      const id = typeof r.id === "string" ? r.id : "(no id)";
      const why = LEFT_OUT[id];
      if (why !== undefined) {
        leftOut.push({ id, why });
        continue;
      }
      try {
        byId.set(id, ruleOf(r));
      } catch (e) {
        if (!(e instanceof Refused)) throw e;
        leftOut.push({ id, why: e.message });
      }
    }
  }
  const rules = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { source, fragments: FRAGMENTS, allowlist, rules: withFragments(rules), leftOut };
}
