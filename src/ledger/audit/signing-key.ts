/**
 * The private key that signs audit heads, where no request is at hand (the RunLedger's alarm
 * signs archived segments) and where one is (src/http/audit-keys.ts). The key is the worker
 * secret `AUDIT_SIGNING_KEY` (a private Ed25519 JWK); the published development key signs only
 * under local development: per request at the edge, and for a run created under it in the alarm.
 */
import type { PrivateJwk } from "../../core/audit-head.ts";

/** Signs heads under `npm run dev` and in tests; public by design, worthless elsewhere. */
export const DEVELOPMENT_SIGNING_KEY: PrivateJwk = {
  kty: "OKP",
  crv: "Ed25519",
  x: "r_jAjWZ2_7Jts00IKWhnZdAgl8My_LAn6An8TB9w5YQ",
  d: "X3pu3z8FDJ4SBQ5eQV75lCPOlj0Fc1OUW10MCtTsFAE",
  kid: "tf-audit-development",
  use: "sig",
  alg: "EdDSA",
};

/** The secrets as the worker sees them (not declared in wrangler.toml, so not in `Env`). */
export interface AuditSecrets {
  /** The current private key, a JWK. */
  AUDIT_SIGNING_KEY?: string;
  /** Retired public keys, a JSON array of JWKs. */
  AUDIT_RETIRED_KEYS?: string;
}

/** A JSON variable, or null when unset or not JSON (logged: a broken secret is an incident). */
export function parsedSecret<T>(text: string | undefined): T | null {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    console.error("an audit key variable is not valid JSON");
    return null;
  }
}

/** The configured secret key, or null. */
export function secretSigningKey(env: Env): PrivateJwk | null {
  return parsedSecret<PrivateJwk>((env as AuditSecrets).AUDIT_SIGNING_KEY);
}

/** The key that signs for a run: the secret, else the development key for a local run. */
export function runSigningKey(env: Env, local: boolean): PrivateJwk | null {
  return secretSigningKey(env) ?? (local ? DEVELOPMENT_SIGNING_KEY : null);
}
