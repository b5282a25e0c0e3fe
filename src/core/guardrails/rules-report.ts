/**
 * The result rules in `npm run policy -- check`'s report: the defaults once, then every tool's
 * rules as they apply to it, each rule set away from its default naming where it was set, and
 * a rule looser than its default said so in capitals, since it lets through what the defaults
 * stop.
 */
import type { Fence } from "../policy.ts";
import { resultRulesOf } from "./of-fence.ts";
import {
  DEFAULT_RULES,
  GUARD_RULES,
  type GuardRuleName,
  looserThanDefault,
  type ResolvedRule,
} from "./rules.ts";

/** One rule in words: its action, its fields and bound when set, and where it was set. */
function ruleText(name: GuardRuleName, rule: ResolvedRule): string {
  const bound =
    name === "oversized_field" && rule.maxBytes !== DEFAULT_RULES[name].maxBytes
      ? ` over ${rule.maxBytes} B`
      : "";
  const fields = rule.fields === null ? "" : ` on ${rule.fields.join(", ")}`;
  const looser = looserThanDefault(name, rule) ? ", LOOSER than the default" : "";
  const where = rule.source === "default" ? "" : ` (${rule.source}${looser})`;
  return `${name} ${rule.action}${bound}${fields}${where}`;
}

/** The report's lines on the result rules of every tool of `fence`. */
export function resultRulesLines(fence: Fence): string[] {
  const defaults = GUARD_RULES.map((n) => `${n} ${DEFAULT_RULES[n].action}`).join(", ");
  const lines = [
    "",
    `result rules (default: ${defaults}; a field's bound ${DEFAULT_RULES.oversized_field.maxBytes} B):`,
  ];
  const looser: string[] = [];
  for (const contract of fence.tools.values()) {
    const rules = resultRulesOf(fence, contract);
    const set = GUARD_RULES.filter((n) => rules[n].source !== "default");
    if (set.some((n) => looserThanDefault(n, rules[n]))) looser.push(contract.name);
    const text =
      set.length === 0 ? "the defaults" : set.map((n) => ruleText(n, rules[n])).join("; ");
    lines.push(`  ${contract.name}: ${text}`);
  }
  if (looser.length > 0) {
    lines.push(`looser than the default result rules: ${looser.join(", ")}`);
  }
  return lines;
}
