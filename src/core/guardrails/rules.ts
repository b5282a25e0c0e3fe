/**
 * The result rules of a tool: which detector acts on its answers, and how (`block`, `redact`,
 * `flag`, or `allow` for none). Built-in defaults make every tool safe without configuration;
 * the policy (for every tool, then per tool) and the contract may change each rule.
 */
import * as v from "valibot";
import type { DetectorKind } from "./detectors.ts";

/** What a rule does with what it finds. */
export type GuardAction = "block" | "redact" | "flag" | "allow";

/** Every result rule: one per detector, and the per-field size bound. */
export type GuardRuleName = DetectorKind | "oversized_field";

export const GUARD_RULES: readonly GuardRuleName[] = [
  "secrets",
  "payment_card",
  "email",
  "phone",
  "iban",
  "hidden_characters",
  "model_addressed",
  "oversized_field",
];

/** The actions from loosest to strictest. */
export const STRICTNESS: readonly GuardAction[] = ["allow", "flag", "redact", "block"];

const ActionSchema = v.picklist(STRICTNESS);

const SettingSchema = v.union([
  ActionSchema,
  v.strictObject({
    action: ActionSchema,
    /** Only these fields of the result (dotted paths, array indices left out) are checked. */
    fields: v.optional(v.array(v.pipe(v.string(), v.regex(/^[^.[\]]+(?:\.[^.[\]]+)*$/)))),
    /** For `oversized_field`: the most UTF-8 bytes one string of the result may hold. */
    max_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  }),
]);

/** Result rules as a policy or a contract writes them; an absent rule keeps what was before. */
export const ResultRulesSchema = v.strictObject(
  Object.fromEntries(GUARD_RULES.map((r) => [r, v.optional(SettingSchema)])) as Record<
    GuardRuleName,
    v.OptionalSchema<typeof SettingSchema, undefined>
  >,
);

/** Result rules as written. */
export type ResultRules = v.InferOutput<typeof ResultRulesSchema>;

/** Where a tool's rule was set. */
export type RuleSource = "default" | "policy" | "contract" | "policy.tools";

/** One rule as it applies to a tool. */
export interface ResolvedRule {
  /** What the rule does. */
  action: GuardAction;
  /** Only these fields are checked; null for every field. */
  fields: readonly string[] | null;
  /** For `oversized_field`: the bound in UTF-8 bytes. */
  maxBytes: number;
  /** Where the rule was last set. */
  source: RuleSource;
}

/** Every rule of a tool. */
export type ResolvedRules = Readonly<Record<GuardRuleName, ResolvedRule>>;

/** The default bound of one string of a result, in UTF-8 bytes. */
export const DEFAULT_FIELD_MAX_BYTES = 65_536;

/**
 * Safe without configuration: secrets and payment card numbers are redacted, hidden
 * characters stripped (and said so), text addressed to the model flagged, oversized strings
 * flagged; other personal data is each contract's choice.
 */
const DEFAULT_ACTIONS: Readonly<Record<GuardRuleName, GuardAction>> = {
  secrets: "redact",
  payment_card: "redact",
  email: "allow",
  phone: "allow",
  iban: "allow",
  hidden_characters: "redact",
  model_addressed: "flag",
  oversized_field: "flag",
};

export const DEFAULT_RULES: ResolvedRules = Object.fromEntries(
  GUARD_RULES.map((r) => [
    r,
    {
      action: DEFAULT_ACTIONS[r],
      fields: null,
      maxBytes: DEFAULT_FIELD_MAX_BYTES,
      source: "default",
    },
  ]),
) as unknown as ResolvedRules;

/** The rules after `layers`, each written over the ones before it. */
export function resolveRules(
  layers: readonly { source: RuleSource; rules: ResultRules | undefined }[],
): ResolvedRules {
  const out: Record<GuardRuleName, ResolvedRule> = { ...DEFAULT_RULES };
  for (const { source, rules } of layers) {
    for (const name of GUARD_RULES) {
      const setting = rules?.[name];
      if (setting === undefined) continue;
      const before = out[name];
      out[name] =
        typeof setting === "string"
          ? { ...before, action: setting, source }
          : {
              action: setting.action,
              fields: setting.fields ?? before.fields,
              maxBytes: setting.max_bytes ?? before.maxBytes,
              source,
            };
    }
  }
  return out;
}

/** Whether `rule` acts less strictly than the built-in default (`policy check` shows it). */
export function looserThanDefault(name: GuardRuleName, rule: ResolvedRule): boolean {
  return STRICTNESS.indexOf(rule.action) < STRICTNESS.indexOf(DEFAULT_ACTIONS[name]);
}

/** Problems of result rules as written at `at` (a contract's or the policy's), for loading. */
export function resultRulesProblems(rules: unknown, at: string): string[] {
  if (rules === undefined) return [];
  const parsed = v.safeParse(ResultRulesSchema, rules, { abortEarly: false });
  if (parsed.success) return [];
  return parsed.issues.map((i) => `${at}.${v.getDotPath(i) ?? ""}: ${i.message}`);
}
