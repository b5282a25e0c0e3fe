/**
 * What other result rules would have done to a recorded answer, from its audit note alone:
 * the note names each finding by rule, what, action and field, never the value, which is
 * enough to tell whether the answer would now be withheld. A rule that was `allow` searched
 * nothing, so what it would find is not known.
 */
import type { ResolvedRules } from "./rules.ts";
import { applies, type GuardFinding } from "./scan.ts";

const STEP = /\.([A-Za-z_][\w-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;

/** The dotted field of a finding's JSONPath, array indices left out (`$.a[0].b` is `a.b`). */
export function fieldOfPath(path: string): string {
  const keys: string[] = [];
  STEP.lastIndex = 1;
  for (const m of path.matchAll(STEP)) {
    if (m[1] !== undefined) keys.push(m[1]);
    else if (m[3] !== undefined) keys.push(JSON.parse(m[3]) as string);
  }
  return keys.join(".");
}

/** Whether `rules` would withhold an answer whose recorded findings are `findings`. */
export function blockedUnder(findings: readonly GuardFinding[], rules: ResolvedRules): boolean {
  return findings.some((f) => {
    const rule = rules[f.rule];
    if (rule.action !== "block" || !applies(rule.fields, fieldOfPath(f.path))) return false;
    if (f.rule !== "oversized_field") return true;
    // The recorded size against the bound now: `what` is "<bytes> bytes".
    return Number.parseInt(f.what, 10) > rule.maxBytes;
  });
}
