/**
 * Human approval, as pure decisions: which policy rule asks a person before a call may run,
 * and whether a stored approval lets this call through. The RunLedger stores approvals and
 * applies these decisions inside the transaction that admits and charges the call.
 */
import * as v from "valibot";
import { canonicalize, sha256Hex } from "./canonical.ts";
import { parseDuration } from "./duration.ts";
import { namedIn, PersonEntrySchema } from "./people.ts";
import type { AuditPrincipal, PersonPrincipal } from "./principal.ts";
import { type Refusal, refuse } from "./reasons.ts";
import type { ApprovalStatus } from "./shapes/approval.ts";

const RuleName = v.pipe(v.string(), v.regex(/^[a-z0-9_]{1,64}$/));
const ArgName = v.pipe(v.string(), v.minLength(1));
/** How long an approval a rule opens waits for a person (`15m`, `1h`), at least one second. */
const Deadline = v.optional(
  v.pipe(
    v.string(),
    v.check(
      (text) => (parseDuration(text) ?? 0) >= 1_000,
      "a duration of 1s or more, as 15m or 1h",
    ),
  ),
);

/** The most distinct approvers a rule may ask for. */
export const MAX_QUORUM = 10;

/**
 * Who may decide an approval a rule asks for: `operators` (any operator key or signed-in
 * operator of the tenant), or the people named, each by email or `sub:<subject>` as the
 * policy's `operators.allow` names them; an operator key is then no one's and cannot decide.
 */
const ApproversSchema = v.union([
  v.literal("operators"),
  v.strictObject({
    people: v.pipe(v.array(PersonEntrySchema), v.minLength(1), v.maxLength(100)),
  }),
]);

/** Who may decide, how many distinct approvals make the grant, and whether the proposer may. */
const Deciders = {
  approvers: v.optional(ApproversSchema, "operators"),
  quorum: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_QUORUM)), 1),
  self_approval: v.optional(v.boolean(), false),
};

/**
 * One approval rule under `tools.<name>.approval`. A rule asks when it matches: `always`,
 * an argument whose value is one of `in`, a number `above` a bound, a string that
 * `matches` a pattern, or once the run has made `after_paid_calls` paid calls. Each may say
 * who decides (`approvers`), how many must approve (`quorum`) and whether the person whose
 * agent proposed the call may approve it (`self_approval`).
 * Its `deadline` (a duration) is how long the approval it opens waits for a person, in place
 * of the policy's `approval_ttl_ms`; past it the answer is a denial, `approval_expired`.
 */
export const ApprovalRuleSchema = v.union([
  v.strictObject({ name: RuleName, deadline: Deadline, always: v.literal(true), ...Deciders }),
  v.strictObject({
    name: RuleName,
    deadline: Deadline,
    arg: ArgName,
    in: v.pipe(v.array(v.union([v.string(), v.number(), v.boolean()])), v.minLength(1)),
    ...Deciders,
  }),
  v.strictObject({
    name: RuleName,
    deadline: Deadline,
    arg: ArgName,
    above: v.number(),
    ...Deciders,
  }),
  v.strictObject({
    name: RuleName,
    deadline: Deadline,
    arg: ArgName,
    matches: v.pipe(v.string(), v.minLength(1)),
    ...Deciders,
  }),
  v.strictObject({
    name: RuleName,
    deadline: Deadline,
    after_paid_calls: v.pipe(v.number(), v.integer(), v.minValue(0)),
    ...Deciders,
  }),
]);

/** A validated approval rule (its deciders' options may be left to their defaults). */
export type ApprovalRule = v.InferInput<typeof ApprovalRuleSchema>;

/** A rule's deciders: who, how many, and whether the proposer may approve. */
export interface RuleDeciders {
  approvers: "operators" | { people: string[] };
  quorum: number;
  self_approval: boolean;
}

/** A rule's deciders, with the defaults: any operator, one approval, not the proposer. */
export function decidersOf(rule: ApprovalRule): RuleDeciders {
  return {
    approvers: rule.approvers ?? "operators",
    quorum: rule.quorum ?? 1,
    self_approval: rule.self_approval ?? false,
  };
}

/** The argument a rule reads, or null for `always` and `after_paid_calls`. */
export function ruleArg(rule: ApprovalRule): string | null {
  return "arg" in rule ? rule.arg : null;
}

/** How long an approval `rule` opens waits for a person: its `deadline`, else `fallbackMs`. */
export function ruleWaitMs(rule: ApprovalRule, fallbackMs: number): number {
  return rule.deadline === undefined ? fallbackMs : (parseDuration(rule.deadline) ?? fallbackMs);
}

/** The rule in words, for the policy report and the answer's `rule.description`. */
export function describeRule(rule: ApprovalRule): string {
  if ("always" in rule) return "always";
  if ("after_paid_calls" in rule) return `after ${rule.after_paid_calls} paid calls of the run`;
  if ("in" in rule) return `${rule.arg} in ${JSON.stringify(rule.in)}`;
  if ("above" in rule) return `${rule.arg} > ${rule.above}`;
  return `${rule.arg} matches /${rule.matches}/`;
}

/** Who decides a rule's approvals, in words, for the policy report. */
export function describeDeciders(rule: ApprovalRule): string {
  const d = decidersOf(rule);
  const who =
    d.approvers === "operators" ? "operators" : `people ${JSON.stringify(d.approvers.people)}`;
  const self = d.self_approval ? "the proposer may approve" : "not the proposer";
  return `decided by ${who}; quorum ${d.quorum}; ${self}`;
}

/** A quorum the named approvers cannot reach is a policy error, found by `loadFence`. */
export function decidersProblem(rule: ApprovalRule): string | null {
  const d = decidersOf(rule);
  if (d.approvers === "operators") return null;
  const named = new Set(d.approvers.people.map((p) => p.toLowerCase()));
  if (named.size < d.approvers.people.length) return "a person is named twice";
  if (d.quorum > named.size) {
    return `quorum ${d.quorum} is more than the ${named.size} people named`;
  }
  return null;
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
  /** The name of the rule that asked. */
  rule?: string;
  /** The fingerprint of an approver's edit of the arguments: the grant then binds only it. */
  editedFingerprint?: string | null;
  /** The edited arguments, JSON text, when an approver edited them. */
  editedArgs?: string | null;
  /** Expired at its deadline by the run's alarm, and the call not yet told so. */
  expiryUnreported?: boolean;
}

/** What an approval does for a call that a rule asks about. */
export type GrantDecision =
  /** No usable approval: open a new one and answer `needs_approval`. */
  | { kind: "ask" }
  /** Still waiting for an operator. */
  | { kind: "wait"; id: string; requestedAt: number; expiresAt: number }
  /** Approved: consume the grant and admit the call, in one transaction. */
  | { kind: "consume"; id: string }
  /**
   * Denied, expired, or approved with other arguments (`editedArgs`, JSON text); `expire` names
   * an approval to mark expired as it is reported.
   */
  | { kind: "refuse"; id: string; refusal: Refusal; expire: boolean; editedArgs?: string };

/**
 * Whether the latest approval for this tool, payload fingerprint and key admits the call now. A
 * consumed grant is spent (single use), an expired one is reported once and then asked anew,
 * and a grant made under another policy version binds nothing. A grant an approver edited
 * admits only the edited payload (`fingerprint` is the call's): the call as first proposed is
 * refused with the edited arguments, so the agent proposes those.
 */
export function grantFor(
  latest: ApprovalState | null,
  policyVersion: string,
  now: number,
  fingerprint?: string,
): GrantDecision {
  const told = latest?.status === "expired" && latest.expiryUnreported !== true;
  if (latest === null || latest.status === "consumed" || told) return { kind: "ask" };
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
  if (latest.status === "expired" || now >= latest.expiresAt) {
    const when = new Date(latest.expiresAt).toISOString();
    const detail = `Approval ${id} expired at ${when}; propose the call again to ask anew.`;
    return { kind: "refuse", id, expire: true, refusal: refuse("approval_expired", detail) };
  }
  if (latest.status === "pending") {
    return { kind: "wait", id, requestedAt: latest.requestedAt, expiresAt: latest.expiresAt };
  }
  const edited = latest.editedFingerprint ?? null;
  if (edited !== null && fingerprint !== undefined && fingerprint !== edited) {
    const args = latest.editedArgs ?? "{}";
    const detail = `Approval ${id} was approved with edited arguments: propose the call again with the same idempotency key and these arguments: ${args}`;
    return {
      kind: "refuse",
      id,
      expire: false,
      refusal: refuse("approval_edited", detail),
      editedArgs: args,
    };
  }
  return { kind: "consume", id };
}

/** An operator's decision on a pending approval. */
export type OperatorDecision = "approve" | "deny";

/** Whether an operator may decide an approval in this state now, or why not. */
export function decidable(state: ApprovalState, now: number): Refusal | null {
  if (state.status !== "pending" && state.status !== "expired") {
    return refuse("approval_already_decided", `Approval ${state.id} is already ${state.status}.`);
  }
  if (state.status === "expired" || now >= state.expiresAt) {
    const when = new Date(Math.min(state.expiresAt, now)).toISOString();
    return refuse("approval_expired", `Approval ${state.id} expired at ${when}.`);
  }
  return null;
}

/**
 * A person as an act or a call names them: their issuer, subject and email, if known, and
 * whether their identity provider said it verified that email.
 */
export type PersonId = Pick<PersonPrincipal, "iss" | "sub" | "email" | "email_verified">;

/**
 * Who decides an approval, or proposed its call: a stable id (one approval each) and the
 * person, if one.
 */
export interface Decider {
  /** `key:<key id>` (`key:development` for the development key) or `person:<iss> <sub>`. */
  id: string;
  /** The person signed in, or null for an operator key. */
  person: PersonId | null;
}

/**
 * The decider of a principal: a person by issuer and subject, a key by its id; an act with no
 * principal, or the fence's, by its actor.
 */
export function deciderOf(principal: AuditPrincipal | undefined, actor: string): Decider {
  if (principal?.kind === "person") {
    const person: PersonId = { iss: principal.iss, sub: principal.sub };
    if (principal.email !== undefined) person.email = principal.email;
    if (principal.email_verified === true) person.email_verified = true;
    return { id: `person:${principal.iss} ${principal.sub}`, person };
  }
  if (principal?.kind === "key")
    return { id: `key:${principal.key_id ?? "development"}`, person: null };
  return { id: `key:${actor}`, person: null };
}

/** Why a person whose email the provider did not verify is not matched by it. */
const UNVERIFIED =
  " Your identity provider did not say it verified your email, so the fence matches you by subject only.";

/** The development key's decider id: under local development it is every role at once. */
const DEVELOPMENT_DECIDER = "key:development";

/**
 * Whether this decider may decide an approval the rule asked for, of a call proposed by
 * `proposer` (the person or key whose call it is, as a decider; null when unknown), or why not.
 * The proposer may not decide it unless the rule says `self_approval`, whether a person or an
 * operator key; only the development key, one local developer in every role, is not held to it.
 */
export function mayDecide(
  rule: ApprovalRule,
  decider: Decider,
  proposer: Decider | null,
  id: string,
): Refusal | null {
  const d = decidersOf(rule);
  if (d.approvers !== "operators") {
    if (decider.person === null) {
      const detail = `Approval ${id} (rule ${rule.name}) is decided only by the people the rule names; an operator key is no one of them. Sign in to the console as one of them.`;
      return refuse("approver_not_allowed", detail);
    }
    if (!namedIn(d.approvers.people, decider.person, decider.person.email_verified === true)) {
      const { email, email_verified } = decider.person;
      const unverified = email !== undefined && email_verified !== true ? UNVERIFIED : "";
      const detail = `Approval ${id} (rule ${rule.name}) is decided only by the people the rule names, and you are not one of them.${unverified}`;
      return refuse("approver_not_allowed", detail);
    }
  }
  const self = proposer?.id === decider.id && decider.id !== DEVELOPMENT_DECIDER;
  if (self && !d.self_approval) {
    const who =
      decider.person === null ? "this key proposed this call" : "your own agent proposed this call";
    const detail = `Approval ${id}: ${who}, and rule ${rule.name} does not let the proposer approve it; another approver must.`;
    return refuse("self_approval_not_allowed", detail);
  }
  return null;
}

/** The policy's version: SHA-256 (hex) of its RFC 8785 form; a grant binds one version. */
export function policyVersionOf(policy: unknown): Promise<string> {
  return sha256Hex(canonicalize(policy));
}
