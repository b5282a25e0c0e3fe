/**
 * The limits a person grants on the consent page, or an operator leaves when tightening a
 * grant: read from the form and tightened against a base like a run override, never looser.
 */
import { type RunLimits, tighten } from "../core/limits.ts";
import type { Fence } from "../core/policy.ts";
import type { GrantLimits } from "./grant.ts";

type Form = Record<string, string | File | (string | File)[]>;

/** The tools a grant of `tenant` may name: the tenant's (or the policy's) allowed tools. */
export function grantableTools(fence: Fence, base: RunLimits): readonly string[] {
  return base.allowed_tools ?? fence.policy.allowed_tools;
}

function fieldNumber(form: Form, name: string): number | null {
  const value = form[name];
  if (typeof value !== "string" || !/^\d{1,12}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** The form's limits, tightened against the tenant's, or why they are not acceptable. */
export function limitsOfForm(
  fence: Fence,
  base: RunLimits,
  form: Form,
): { ok: true; limits: GrantLimits } | { ok: false; error: string } {
  const raw = form.tools;
  const tools = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (t): t is string => typeof t === "string",
  );
  const mutations = fieldNumber(form, "max_mutations");
  const paid = fieldNumber(form, "max_paid_calls");
  const seconds = fieldNumber(form, "deadline_seconds");
  if (mutations === null || paid === null || seconds === null || seconds < 1) {
    return { ok: false, error: "Each limit is a whole number; the deadline at least 1 s." };
  }
  const override = {
    allowed_tools: [...new Set(tools)],
    max_mutations: mutations,
    max_paid_calls: paid,
    deadline_ms: seconds * 1000,
  };
  const tightened = tighten(base, override, fence.policy.allowed_tools);
  if (!tightened.ok) {
    return { ok: false, error: `${tightened.error.field}: ${tightened.error.detail}.` };
  }
  return { ok: true, limits: override };
}
