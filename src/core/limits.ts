/**
 * A run's effective limits and how `PUT /v1/runs/{id}` may tighten them, never loosen.
 */
import * as v from "valibot";
import { err, ok, type Result } from "./result.ts";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A per-tool cap: how many calls of the tool one run may make. */
const ToolCapSchema = v.strictObject({ max_calls_per_run: Count });

/**
 * Limits that tighten a base set: a tenant block in the policy, or the body of
 * `PUT /v1/runs/{id}`. Every field is optional; what is absent stays as it was.
 */
export const LimitOverrideSchema = v.strictObject({
  allowed_tools: v.optional(v.array(v.string())),
  max_mutations: v.optional(Count),
  max_paid_calls: v.optional(Count),
  deadline_ms: v.optional(PositiveInt),
  tools: v.optional(v.record(v.string(), ToolCapSchema)),
});

/** A validated override. */
export type LimitOverride = v.InferOutput<typeof LimitOverrideSchema>;

/** The effective limits of one run, stored in its row when the run is created. */
export interface RunLimits {
  /** Tools the run may call, a subset of the policy's; null for every tool the policy allows. */
  allowed_tools: readonly string[] | null;
  /** Most mutations the run may apply. */
  max_mutations: number;
  /** Most paid calls the run may make. */
  max_paid_calls: number;
  /** How long after its creation the run admits calls. */
  deadline_ms: number;
  /** Most calls per run, by tool; a tool not listed is uncapped (the budget still binds). */
  tool_caps: Readonly<Record<string, number>>;
}

/** Which field of an override would loosen its base, and how. */
export interface Loosening {
  /** Dotted path of the offending field in the override. */
  field: string;
  /** Why it is looser. */
  detail: string;
}

/**
 * Apply `override` to `base`, refusing any field that would loosen it: a larger
 * budget, a longer deadline, a tool the base does not allow, a per-tool cap above the
 * base's (or any cap for a tool the base does not allow). Never looser is the whole rule.
 */
export function tighten(
  base: RunLimits,
  override: LimitOverride,
  policyTools: readonly string[],
): Result<RunLimits, Loosening> {
  const numbers = ["max_mutations", "max_paid_calls", "deadline_ms"] as const;
  for (const field of numbers) {
    const wanted = override[field];
    if (wanted !== undefined && wanted > base[field]) {
      return err({ field, detail: `${field} ${wanted} is above the ${base[field]} allowed` });
    }
  }
  const universe = base.allowed_tools ?? policyTools;
  const allowed = override.allowed_tools ?? base.allowed_tools;
  const stray = allowed?.findIndex((t) => !universe.includes(t)) ?? -1;
  if (stray >= 0) {
    const tool = JSON.stringify(allowed?.[stray]);
    return err({ field: `allowed_tools.${stray}`, detail: `${tool} is not allowed` });
  }
  const caps: Record<string, number> = {};
  for (const [tool, cap] of Object.entries(base.tool_caps)) {
    if (allowed?.includes(tool) ?? true) caps[tool] = cap;
  }
  for (const [tool, cap] of Object.entries(override.tools ?? {})) {
    const field = `tools.${tool}.max_calls_per_run`;
    if (!universe.includes(tool)) {
      return err({ field, detail: `${JSON.stringify(tool)} is not allowed` });
    }
    const current = base.tool_caps[tool];
    if (current !== undefined && cap.max_calls_per_run > current) {
      return err({ field, detail: `${cap.max_calls_per_run} is above the ${current} allowed` });
    }
    if (allowed?.includes(tool) ?? true) caps[tool] = cap.max_calls_per_run;
  }
  return ok({
    allowed_tools: allowed === null ? null : [...new Set(allowed)],
    max_mutations: override.max_mutations ?? base.max_mutations,
    max_paid_calls: override.max_paid_calls ?? base.max_paid_calls,
    deadline_ms: override.deadline_ms ?? base.deadline_ms,
    tool_caps: caps,
  });
}
