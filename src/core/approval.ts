/**
 * Human approval, as pure decisions: which policy rule asks a person before a call may run,
 * and whether a stored approval lets this call through. The RunLedger stores approvals and
 * applies these decisions inside the transaction that admits and charges the call.
 */
import * as v from "valibot";
import { canonicalize, sha256Hex } from "./canonical.ts";
import { type Refusal, refuse } from "./reasons.ts";
import type { ApprovalStatus } from "./shapes/approval.ts";

const RuleName = v.pipe(v.string(), v.regex(/^[a-z0-9_]{1,64}$/));
const ArgName = v.pipe(v.string(), v.minLength(1));

/**
 * One approval rule under `tools.<name>.approval`. A rule asks when it matches: `always`,
 * an argument whose value is one of `in`, a number `above` a bound, a string that
 * `matches` a pattern, or once the run has made `after_paid_calls` paid calls.
 */
export const ApprovalRuleSchema = v.union([
  v.strictObject({ name: RuleName, always: v.literal(true) }),
  v.strictObject({
    name: RuleName,
    arg: ArgName,
    in: v.pipe(v.array(v.union([v.string(), v.number(), v.boolean()])), v.minLength(1)),
  }),
  v.strictObject({ name: RuleName, arg: ArgName, above: v.number() }),
  v.strictObject({ name: RuleName, arg: ArgName, matches: v.pipe(v.string(), v.minLength(1)) }),
  v.strictObject({
    name: RuleName,
    after_paid_calls: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
]);

/** A validated approval rule. */
export type ApprovalRule = v.InferOutput<typeof ApprovalRuleSchema>;

/** The argument a rule reads, or null for `always` and `after_paid_calls`. */
export function ruleArg(rule: ApprovalRule): string | null {
  return "arg" in rule ? rule.arg : null;
}

/** The rule in words, for the policy report and the answer's `rule.description`. */
export function describeRule(rule: ApprovalRule): string {
  if ("always" in rule) return "always";
  if ("after_paid_calls" in rule) return `after ${rule.after_paid_calls} paid calls of the run`;
  if ("in" in rule) return `${rule.arg} in ${JSON.stringify(rule.in)}`;
  if ("above" in rule) return `${rule.arg} > ${rule.above}`;
  return `${rule.arg} matches /${rule.matches}/`;
}

/** A pattern that does not compile is a policy error, found by `loadFence`. */
export function patternProblem(rule: ApprovalRule): string | null {
  if (!("matches" in rule)) return null;
  try {
    new RegExp(rule.matches, "u");
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function matches(rule: ApprovalRule, args: Record<string, unknown>, paidUsed: number): boolean {
  if ("always" in rule) return true;
  if ("after_paid_calls" in rule) return paidUsed >= rule.after_paid_calls;
  const value = args[rule.arg];
  if ("in" in rule) return rule.in.some((allowed) => allowed === value);
  if ("above" in rule) return typeof value === "number" && value > rule.above;
  return typeof value === "string" && new RegExp(rule.matches, "u").test(value);
}

/**
 * The first rule that asks for approval of a call with these validated arguments, in a run
 * that has made `paidUsed` paid calls; null when the call needs nobody.
 */
export function askingRule(
  rules: readonly ApprovalRule[],
  args: unknown,
  paidUsed: number,
): ApprovalRule | null {
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  return rules.find((rule) => matches(rule, record, paidUsed)) ?? null;
}

/** Where an approval stands. */
export type { ApprovalStatus };

/** The stored approval a call's tool, fingerprint and idempotency key last asked for. */
export interface ApprovalState {
  /** Its id, as the agent and operator see it. */
  id: string;
  /** Where it stands. */
  status: ApprovalStatus;
  /** Epoch ms a call first asked for it. */
  requestedAt: number;
  /** Epoch ms after which it no longer admits the call (pending or approved). */
  expiresAt: number;
  /** The policy version it was asked under; a grant binds only that version. */
  policyVersion: string;
  /** The operator's note, once decided. */
  note: string | null;
}

/** What an approval does for a call that a rule asks about. */
export type GrantDecision =
  /** No usable approval: open a new one and answer `needs_approval`. */
  | { kind: "ask" }
  /** Still waiting for an operator. */
  | { kind: "wait"; id: string; requestedAt: number; expiresAt: number }
  /** Approved: consume the grant and admit the call, in one transaction. */
  | { kind: "consume"; id: string }
  /** Denied or expired; `expire` names an approval to mark expired as it is reported. */
  | { kind: "refuse"; id: string; refusal: Refusal; expire: boolean };

/**
 * Whether the latest approval for this tool, payload fingerprint and key admits the call now. A
 * consumed grant is spent (single use), an expired one is reported once and then asked anew,
 * and a grant made under another policy version binds nothing.
 */
export function grantFor(
  latest: ApprovalState | null,
  policyVersion: string,
  now: number,
): GrantDecision {
  if (latest === null || latest.status === "consumed" || latest.status === "expired") {
    return { kind: "ask" };
  }
  const { id } = latest;
  if (latest.status === "denied") {
    const note = latest.note === null || latest.note === "" ? "no note" : latest.note;
    return {
      kind: "refuse",
      id,
      expire: false,
      refusal: refuse("approval_denied", `An operator denied this call: ${note}`),
    };
  }
  if (latest.policyVersion !== policyVersion) return { kind: "ask" };
  if (now >= latest.expiresAt) {
    const when = new Date(latest.expiresAt).toISOString();
    const detail = `Approval ${id} expired at ${when}; propose the call again to ask anew.`;
    return { kind: "refuse", id, expire: true, refusal: refuse("approval_expired", detail) };
  }
  if (latest.status === "pending") {
    return { kind: "wait", id, requestedAt: latest.requestedAt, expiresAt: latest.expiresAt };
  }
  return { kind: "consume", id };
}

/** An operator's decision on a pending approval. */
export type OperatorDecision = "approve" | "deny";

/** Whether an operator may decide an approval in this state now, or why not. */
export function decidable(state: ApprovalState, now: number): Refusal | null {
  if (state.status !== "pending") {
    return refuse("approval_already_decided", `Approval ${state.id} is already ${state.status}.`);
  }
  if (now >= state.expiresAt) {
    const when = new Date(state.expiresAt).toISOString();
    return refuse("approval_expired", `Approval ${state.id} expired at ${when}.`);
  }
  return null;
}

/** The policy's version: SHA-256 (hex) of its RFC 8785 form; a grant binds one version. */
export function policyVersionOf(policy: unknown): Promise<string> {
  return sha256Hex(canonicalize(policy));
}
