/**
 * Who an audit entry's act is by: its principal, a member of the entry and so inside its hash
 * (src/core/audit-chain.ts). A key (by its digest and label), a person signed in through an
 * identity provider, and either through an OAuth grant (its client and grant), or the fence
 * itself for what it settles alone (an abandoned call, by the run's alarm).
 */
import type * as v from "valibot";
import type { Person } from "./people.ts";
import type { PrincipalSchema, UpstreamIdentitySchema } from "./shapes/audit.ts";

/** Who an entry's act is by (its schema: src/core/shapes/audit.ts). */
export type AuditPrincipal = v.InferOutput<typeof PrincipalSchema>;

/** A caller by API key (`key_id` null: the development key). */
export type KeyPrincipal = Extract<AuditPrincipal, { kind: "key" }>;

/** A person, as their identity provider named them. */
export type PersonPrincipal = Extract<AuditPrincipal, { kind: "person" }>;

/** The fence itself: the alarm's settlements. */
export const FENCE_PRINCIPAL: AuditPrincipal = { kind: "fence" };

/** The principal of a person (no member for what the provider did not give). */
export function personPrincipal(person: Person): PersonPrincipal {
  return {
    kind: "person",
    iss: person.iss,
    sub: person.sub,
    ...(person.email === null ? {} : { email: person.email }),
    ...(person.email !== null && person.email_verified === true ? { email_verified: true } : {}),
    ...(person.name === null ? {} : { name: person.name }),
  };
}

/** A principal acting through an OAuth grant. */
export function viaGrant(
  principal: KeyPrincipal | PersonPrincipal,
  clientId: string,
  grantId: string,
): AuditPrincipal {
  return { ...principal, client_id: clientId, grant_id: grantId };
}

/** The upstream identity a call made as the principal used (src/core/shapes/audit.ts). */
export type UpstreamIdentity = v.InferOutput<typeof UpstreamIdentitySchema>;

/** The principal of a call made as them, naming the upstream identity it used. */
export function asUpstream(
  principal: KeyPrincipal | PersonPrincipal,
  identity: UpstreamIdentity,
): AuditPrincipal {
  return { ...principal, upstream_identity: identity };
}

/** A short name for who acted, for an operator's `actor` and the console. */
export function principalName(p: AuditPrincipal): string {
  switch (p.kind) {
    case "key":
      return p.label;
    case "person":
      return p.email ?? p.name ?? p.sub;
    case "fence":
      return "the fence";
  }
}
