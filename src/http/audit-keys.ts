/**
 * The keys that sign audit heads. The private key is the worker secret `AUDIT_SIGNING_KEY`
 * (a private Ed25519 JWK, from `npm run keys -- audit-keygen`); retired public keys stay in
 * `AUDIT_RETIRED_KEYS` (a JSON array of public JWKs) so a head signed before a rotation still
 * verifies. Under local development, and only there, a published development key signs when
 * no secret is set: like the development API key, a deployed worker never uses it.
 */
import { type PrivateJwk, type PublicJwk, publicJwk } from "../core/audit-head.ts";
import {
  type AuditSecrets,
  DEVELOPMENT_SIGNING_KEY,
  parsedSecret,
  secretSigningKey,
} from "../ledger/audit/signing-key.ts";
import { isLocalDevelopment } from "./local-dev.ts";

/** The key that signs this request's heads, or null when none may. */
export function signingKey(env: Env, request: Request): PrivateJwk | null {
  const secret = secretSigningKey(env);
  if (secret !== null) return secret;
  return isLocalDevelopment(request.headers, request.url) ? DEVELOPMENT_SIGNING_KEY : null;
}

/** The JWKS: the current key's public half and every retired key (RFC 7517 §5). */
export function publishedKeys(env: Env, request: Request): { keys: PublicJwk[] } {
  const current = signingKey(env, request);
  const retired = parsedSecret<PublicJwk[]>((env as AuditSecrets).AUDIT_RETIRED_KEYS) ?? [];
  return { keys: [...(current === null ? [] : [publicJwk(current)]), ...retired] };
}
