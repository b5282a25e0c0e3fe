/**
 * `npm run secret-rules`: convert the vendored gitleaks rule set and the fence's own rules
 * (src/core/guardrails/*.toml) to src/core/guardrails/secret-rules.json, the data the worker
 * imports, and list the rules left out. Run it after updating either file; a test fails
 * while the module is out of date.
 */
import { writeFileSync } from "node:fs";
import { renderSecretRules, secretRuleFiles } from "./lib/secret-rules.ts";

const OUT = "src/core/guardrails/secret-rules.json";

const set = secretRuleFiles();
writeFileSync(OUT, renderSecretRules(set));
process.stdout.write(`wrote ${OUT}: ${set.rules.length} rules from ${set.source}\n`);
for (const d of set.leftOut) process.stdout.write(`  left out ${d.id}: ${d.why}\n`);
