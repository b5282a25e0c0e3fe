/**
 * The secret rule files of the repository and the JSON module made from them
 * (scripts/secret-rules.ts writes it; test/repo/secret-rules.test.ts checks it is current).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { SecretRuleSet } from "../../src/core/guardrails/secret-rules.ts";
import { convertRuleFiles } from "./gitleaks.ts";

const DIR = resolve(import.meta.dirname, "../../src/core/guardrails");

/** The vendored gitleaks rules, then the fence's own, converted. */
export function secretRuleFiles(): SecretRuleSet {
  const gitleaks = readFileSync(resolve(DIR, "gitleaks.toml"), "utf8");
  const fence = readFileSync(resolve(DIR, "fence-secrets.toml"), "utf8");
  const commit = /^# Version: (\S+) \(commit ([0-9a-f]{40})/m.exec(gitleaks);
  if (commit === null) throw new Error("gitleaks.toml: no '# Version: … (commit …' header line");
  return convertRuleFiles([gitleaks, fence], `gitleaks ${commit[1]} (${commit[2]})`);
}

/** The module's text: JSON, which the worker imports as data. */
export function renderSecretRules(set: SecretRuleSet): string {
  return `${JSON.stringify(set, null, 2)}\n`;
}
