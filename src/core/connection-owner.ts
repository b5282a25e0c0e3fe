/**
 * Who an upstream connection belongs to: one principal of one tenant, the key (by its digest)
 * or the person (by their issuer and subject) an audit entry names. A call through an OAuth
 * grant belongs to the person or key who consented, so a person's connections serve every
 * grant they made. The owner's id names their connections' storage; it holds no secret.
 */
import { sha256Hex } from "./canonical.ts";
import type { AuditPrincipal } from "./principal.ts";

/** Who a connection belongs to, with what the console shows of them. */
export type ConnectionOwner =
  | {
      /** An API key (or the development key, `key_id` null). */
      kind: "key";
      /** SHA-256 hex of the key, or null for the development key. */
      key_id: string | null;
      /** The key's label, as its record names it. */
      label: string;
    }
  | {
      /** A person an identity provider signed in. */
      kind: "person";
      /** Their identity provider. */
      iss: string;
      /** Their subject there. */
      sub: string;
      /** Their email, when the provider gave it. */
      email?: string;
      /** Their name, when the provider gave it. */
      name?: string;
    };

/** The owner of the connections a principal's calls use, or null (the fence owns none). */
export function ownerOf(principal: AuditPrincipal | undefined): ConnectionOwner | null {
  if (principal === undefined) return null;
  switch (principal.kind) {
    case "key":
      return { kind: "key", key_id: principal.key_id, label: principal.label };
    case "person": {
      const { iss, sub, email, name } = principal;
      return {
        kind: "person",
        iss,
        sub,
        ...(email === undefined ? {} : { email }),
        ...(name === undefined ? {} : { name }),
      };
    }
    case "fence":
      return null;
  }
}

/**
 * The owner's id: `key.<sha256 hex>`, `key.development`, or `person.` and the SHA-256 of the
 * issuer and subject (a subject is the provider's, of any length and charset). Two principals
 * have one id exactly when they are the same key or the same person.
 */
export async function ownerIdOf(owner: ConnectionOwner): Promise<string> {
  if (owner.kind === "key") return `key.${owner.key_id ?? "development"}`;
  return `person.${await sha256Hex(`${owner.iss}\n${owner.sub}`)}`;
}

/** Owner ids as `ownerIdOf` writes them. */
export const OWNER_ID = /^(key\.([0-9a-f]{64}|development)|person\.[0-9a-f]{64})$/;

/** How the console names an owner. */
export function ownerName(owner: ConnectionOwner): string {
  if (owner.kind === "key") return owner.key_id === null ? "the development key" : owner.label;
  return owner.email ?? owner.name ?? owner.sub;
}
