/**
 * The keys that sign audit heads. The private key is the worker secret `AUDIT_SIGNING_KEY`
 * (a private Ed25519 JWK, from `npm run keys -- audit-keygen`); retired public keys stay in
 * `AUDIT_RETIRED_KEYS` (a JSON array of public JWKs) so a head signed before a rotation still
 * verifies. Under local development, and only there, a published development key signs when
 * no secret is set: like the development API key, a deployed worker never uses it.
 */
import { type PrivateJwk, type PublicJwk, publicJwk } from "../core/audit-head.ts";
import { isLocalDevelopment } from "./local-dev.ts";

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
interface AuditSecrets {
  AUDIT_SIGNING_KEY?: string;
  AUDIT_RETIRED_KEYS?: string;
}

function parsed<T>(text: string | undefined): T | null {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    console.error("an audit key variable is not valid JSON");
    return null;
  }
}

/** The key that signs this request's heads, or null when none may. */
export function signingKey(env: Env, request: Request): PrivateJwk | null {
  const secret = parsed<PrivateJwk>((env as AuditSecrets).AUDIT_SIGNING_KEY);
  if (secret !== null) return secret;
  return isLocalDevelopment(request.headers, request.url) ? DEVELOPMENT_SIGNING_KEY : null;
}

/** The JWKS: the current key's public half and every retired key (RFC 7517 §5). */
export function publishedKeys(env: Env, request: Request): { keys: PublicJwk[] } {
  const current = signingKey(env, request);
  const retired = parsed<PublicJwk[]>((env as AuditSecrets).AUDIT_RETIRED_KEYS) ?? [];
  return { keys: [...(current === null ? [] : [publicJwk(current)]), ...retired] };
}
