/**
 * People who sign in through an identity provider (OpenID Connect, Cloudflare Access): who
 * they are as the fence keeps them, and the policy's `operators` rule that says which of them
 * operate and for which tenant. Pure: the edge verifies the provider's token and hands over
 * its claims; this file decides.
 */
import * as v from "valibot";
import { TENANT_PATTERN } from "./keys.ts";
import { err, ok, type Result } from "./result.ts";

/** A person as a verified identity token names them. */
export interface Person {
  /** The token's issuer: the provider, or the Cloudflare Access team. */
  iss: string;
  /** The person's subject at that issuer: stable, never reassigned (OIDC Core §2). */
  sub: string;
  /** Their email, when the provider gave one. */
  email: string | null;
  /** True when the provider said it verified the email (`email_verified`, OIDC Core §5.1). */
  email_verified?: boolean;
  /** Their display name, when the provider gave one. */
  name: string | null;
}

/** The longest subject, email or name kept: OIDC sets no bound, a cookie and an entry do. */
export const MAX_PERSON_FIELD = 255;

/** One person named in a policy list: an email, or `sub:<subject>`. */
export const PersonEntrySchema = v.pipe(v.string(), v.minLength(3), v.maxLength(MAX_PERSON_FIELD));

/**
 * The policy's `operators` section. A person operates when an `allow` entry names them (an
 * email, which the provider must say is verified, or `sub:<subject>`), or when their `claim`
 * holds the value. They act for `tenant`, or for the tenant their `tenant_claim` names.
 */
export const OperatorsSchema = v.strictObject({
  /** Emails, or `sub:<subject>`, of the people who operate. */
  allow: v.optional(v.array(PersonEntrySchema), []),
  /** A claim that makes whoever holds its value an operator (a group, a role). */
  claim: v.optional(
    v.strictObject({
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
      value: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_PERSON_FIELD)),
    }),
  ),
  /** The tenant people act for. */
  tenant: v.optional(v.pipe(v.string(), v.regex(TENANT_PATTERN)), "default"),
  /** A claim naming the tenant a person acts for, instead of `tenant`, when they have it. */
  tenant_claim: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});

/** A validated `operators` section. */
export type Operators = v.InferOutput<typeof OperatorsSchema>;

/** The person and their claims, the identity token's payload. */
export type Claims = Readonly<Record<string, unknown>>;

/** Whether a claim's value is `value`, or an array that holds it. */
function holds(claim: unknown, value: string): boolean {
  return Array.isArray(claim) ? claim.includes(value) : claim === value;
}

/**
 * Whether `list` names the person: by `sub:<subject>`, or by their email in any case when
 * `verified`. OIDC Core §5.1: an email is the person's only once the provider says it verified
 * it; else anyone let in by a group claim could take a named person's email as their own.
 */
export function namedIn(
  list: readonly string[],
  person: { sub: string; email?: string | null },
  verified: boolean,
): boolean {
  if (list.includes(`sub:${person.sub}`)) return true;
  if (!verified) return false;
  const email = person.email?.toLowerCase();
  return email !== undefined && list.some((entry) => entry.toLowerCase() === email);
}

/**
 * The tenant a person operates for, or why they may not operate: the policy names no
 * operators, the person is not one of them, or their tenant claim is not a tenant name.
 */
export function operatorTenant(
  operators: Operators | undefined,
  person: Person,
  claims: Claims,
): Result<string, string> {
  if (operators === undefined) {
    return err("This fence's policy names no operators (policy.operators, docs/security.md).");
  }
  const byClaim =
    operators.claim !== undefined && holds(claims[operators.claim.name], operators.claim.value);
  // The Cloudflare Access edge adds `email_verified`: Access signs only emails its sign-in verified.
  if (!byClaim && !namedIn(operators.allow, person, claims.email_verified === true)) {
    return err(`${person.email ?? person.sub} is not an operator of this fence.`);
  }
  if (operators.tenant_claim === undefined) return ok(operators.tenant);
  const tenant = claims[operators.tenant_claim];
  if (tenant === undefined) return ok(operators.tenant);
  if (typeof tenant !== "string" || !TENANT_PATTERN.test(tenant)) {
    return err(`The ${operators.tenant_claim} claim does not name a tenant.`);
  }
  return ok(tenant);
}

/**
 * Why a person operated when they approved something that outlives their sign-in (an OAuth
 * grant): named in `allow`, or holding the `claim` rule's value then, for `tenant`. Kept with
 * what they approved, so a later policy can be asked whether they still operate.
 */
export interface Admission {
  /** Whether `allow` named them. */
  allow: boolean;
  /** The claim rule that let them in when `allow` did not, or null. */
  claim: { name: string; value: string } | null;
  /** The tenant they operated for. */
  tenant: string;
}

/** A person as an audit principal names them: enough to ask `allow` again. */
type Named = { sub: string; email?: string | null; email_verified?: boolean };

/** The admission of a person who operates `tenant` under `operators` now. */
export function admissionOf(
  operators: Operators | undefined,
  person: Named,
  tenant: string,
): Admission {
  const allow =
    operators !== undefined && namedIn(operators.allow, person, person.email_verified === true);
  const claim = allow || operators?.claim === undefined ? null : { ...operators.claim };
  return { allow, claim, tenant };
}

/**
 * Whether a person admitted as `admission` still operates its tenant under `operators`: still
 * named in `allow`, or the claim rule that let them in is still the policy's, and the policy
 * still gives them that tenant. The provider's claims are not seen again between sign-ins, so
 * a group the provider takes away from the person shows at their next sign-in, not here.
 */
export function stillOperates(
  operators: Operators | undefined,
  person: Named,
  admission: Admission,
): boolean {
  if (operators === undefined) return false;
  const named = admission.allow && namedIn(operators.allow, person, person.email_verified === true);
  const byClaim =
    admission.claim !== null &&
    operators.claim?.name === admission.claim.name &&
    operators.claim.value === admission.claim.value;
  const tenant = operators.tenant_claim !== undefined || operators.tenant === admission.tenant;
  return (named || byClaim) && tenant;
}

/** The person a verified token's claims name, or null when its subject is unusable. */
export function personOf(claims: Claims): Person | null {
  const text = (value: unknown) =>
    typeof value === "string" && value.length > 0 && value.length <= MAX_PERSON_FIELD
      ? value
      : null;
  const iss = text(claims.iss);
  const sub = text(claims.sub);
  if (iss === null || sub === null) return null;
  const email = text(claims.email);
  const verified = email !== null && claims.email_verified === true;
  return {
    iss,
    sub,
    email,
    name: text(claims.name),
    ...(verified ? { email_verified: true } : {}),
  };
}
