/**
 * Signed heads, after Certificate Transparency's signed tree heads (RFC 9162 §4.10): the
 * fence signs `{tenant, run, seq, hash, at}` (its RFC 8785 form) with Ed25519, and publishes
 * its public keys, current and retired, as a JWKS (RFC 7517; OKP keys per RFC 8037). Anyone
 * holding a head and the keys can check an exported log offline: the chain fixes every entry
 * up to the head, and the signature fixes the head. Web Crypto only, so it runs in the worker,
 * in Node and in a browser.
 */
import { fromBase64Url, toBase64Url } from "./base64url.ts";
import { canonicalize } from "./canonical.ts";

/** What is signed. */
export interface HeadClaim {
  /** Tenant of the run. */
  tenant: string;
  /** The run id. */
  run: string;
  /** The last entry's seq. */
  seq: number;
  /** The last entry's hash. */
  hash: string;
  /** When the head was signed (ISO 8601). */
  at: string;
}

/** A signed head, as `GET /v1/runs/{id}/audit/head` answers. */
export interface SignedHead extends HeadClaim {
  /** Which key signed it (its JWK `kid`). */
  kid: string;
  /** base64url Ed25519 signature over the RFC 8785 form of the claim. */
  sig: string;
}

/** A public Ed25519 key as a JWK. */
export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  use?: "sig";
  alg?: "EdDSA";
}

/** A private Ed25519 key as a JWK (the `d` member is the secret). */
export interface PrivateJwk extends PublicJwk {
  d: string;
}

function claimBytes(h: HeadClaim): Uint8Array<ArrayBuffer> {
  const { tenant, run, seq, hash, at } = h;
  const text = new TextEncoder().encode(canonicalize({ tenant, run, seq, hash, at }));
  return new Uint8Array(text);
}

/** The public half of a private key. */
export function publicJwk(key: PrivateJwk): PublicJwk {
  return { kty: "OKP", crv: "Ed25519", x: key.x, kid: key.kid, use: "sig", alg: "EdDSA" };
}

/** Sign a head claim with a private key. */
export async function signHead(claim: HeadClaim, key: PrivateJwk): Promise<SignedHead> {
  const jwk = { kty: "OKP", crv: "Ed25519", x: key.x, d: key.d };
  const signer = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", signer, claimBytes(claim)));
  const { tenant, run, seq, hash, at } = claim;
  return { tenant, run, seq, hash, at, kid: key.kid, sig: toBase64Url(sig) };
}

/** Check a head's signature against a JWKS; says why not when it fails. */
export async function verifyHead(
  head: SignedHead,
  keys: readonly PublicJwk[],
): Promise<{ ok: true } | { ok: false; problem: string }> {
  const key = keys.find((k) => k.kid === head.kid);
  if (key === undefined) return { ok: false, problem: `unknown key ${JSON.stringify(head.kid)}` };
  // A head read from a file may carry anything where its signature should be.
  const sig = typeof head.sig === "string" ? fromBase64Url(head.sig) : null;
  if (sig === null) return { ok: false, problem: "bad signature" };
  const jwk = { kty: "OKP", crv: "Ed25519", x: key.x };
  const verifier = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, [
    "verify",
  ]);
  const good = await crypto.subtle.verify("Ed25519", verifier, sig, claimBytes(head));
  return good ? { ok: true } : { ok: false, problem: "bad signature" };
}

/** A new key pair (for `npm run keys -- audit-keygen`), with a `kid` from its public key. */
export async function newSigningKey(): Promise<PrivateJwk> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as { x: string; d: string };
  // The raw public key is the 32 bytes `x` encodes (RFC 8037 §2).
  const raw = (await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
  const kid = `tf-audit-${toBase64Url(digest).slice(0, 16)}`;
  return { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d, kid, use: "sig", alg: "EdDSA" };
}
