/**
 * The fence as an OpenID Connect relying party, for people signing in to the console and the
 * consent page: the authorization code flow with PKCE (S256), `state` and `nonce` against the
 * issuer the operator configures (`OIDC_ISSUER`, `OIDC_CLIENT_ID`, the secret
 * `OIDC_CLIENT_SECRET`). The provider's metadata comes from its discovery document (OIDC
 * Discovery §4) and the ID token is checked with `jose` against the provider's JWKS: its
 * signature, `iss`, `aud`, `exp`, and the `nonce` this browser was given (OIDC Core §3.1.3.7).
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { toBase64Url } from "../core/base64url.ts";
import { err, ok, type Result } from "../core/result.ts";
import { trustedOrigin } from "../core/secure-origin.ts";

/** The relying party's configuration, from the Worker's vars and secrets. */
export interface OidcConfig {
  /** The provider's issuer identifier, exactly as its tokens name it. */
  issuer: string;
  /** The fence's client id at the provider. */
  clientId: string;
  /** The fence's client secret (`client_secret_basic`), or null for a public client. */
  clientSecret: string | null;
}

/** What the fence reads of a provider's discovery document. */
interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** How long a sign-in may take at the provider; a slower answer is refused. */
const PROVIDER_TIMEOUT_MS = 5_000;

/** The configuration, or null when the deployment set no provider (or an unusable issuer). */
export function oidcConfig(env: Env): OidcConfig | null {
  const issuer = env.OIDC_ISSUER ?? "";
  const clientId = env.OIDC_CLIENT_ID ?? "";
  if (issuer === "" || clientId === "" || !trustedOrigin(issuer)) return null;
  const secret = env.OIDC_CLIENT_SECRET ?? "";
  return { issuer, clientId, clientSecret: secret === "" ? null : secret };
}

const metadataCache = new Map<string, ProviderMetadata>();
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The provider's metadata from `<issuer>/.well-known/openid-configuration`, once per isolate. */
async function discover(issuer: string): Promise<Result<ProviderMetadata, string>> {
  const cached = metadataCache.get(issuer);
  if (cached !== undefined) return ok(cached);
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  let doc: Partial<ProviderMetadata>;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
    if (!res.ok) return err(`The identity provider's discovery answered ${res.status}.`);
    doc = (await res.json()) as Partial<ProviderMetadata>;
  } catch {
    return err("The identity provider could not be reached.");
  }
  const endpoints = [doc.authorization_endpoint, doc.token_endpoint, doc.jwks_uri];
  // OIDC Discovery §4.3: the document's issuer must be exactly the one configured.
  if (doc.issuer !== issuer) return err("The identity provider's discovery names another issuer.");
  if (!endpoints.every((e) => typeof e === "string" && trustedOrigin(e))) {
    return err("The identity provider's discovery lacks an endpoint.");
  }
  const meta = doc as ProviderMetadata;
  metadataCache.set(issuer, meta);
  return ok(meta);
}

function keySetOf(jwksUri: string) {
  let set = keySets.get(jwksUri);
  if (set === undefined) {
    set = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_MS });
    keySets.set(jwksUri, set);
  }
  return set;
}

/** What one sign-in keeps in the browser between leaving for the provider and coming back. */
export interface Attempt {
  /** Binds the provider's answer to this browser (RFC 6749 §10.12). */
  state: string;
  /** Binds the ID token to this attempt (OIDC Core §3.1.2.1). */
  nonce: string;
  /** The PKCE code verifier (RFC 7636). */
  verifier: string;
}

function randomText(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A fresh attempt. */
export function newAttempt(): Attempt {
  return { state: randomText(), nonce: randomText(), verifier: randomText() };
}

/** Where to send the browser: the provider's authorization endpoint with this attempt. */
export async function authorizationUrl(
  config: OidcConfig,
  attempt: Attempt,
  redirectUri: string,
): Promise<Result<string, string>> {
  const meta = await discover(config.issuer);
  if (!meta.ok) return meta;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(attempt.verifier));
  const url = new URL(meta.value.authorization_endpoint);
  const params = {
    response_type: "code",
    client_id: config.clientId,
    redirect_uri: redirectUri,
    scope: "openid email profile",
    state: attempt.state,
    nonce: attempt.nonce,
    code_challenge: toBase64Url(new Uint8Array(digest)),
    code_challenge_method: "S256",
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return ok(url.toString());
}

/** Exchange the code for tokens and verify the ID token; its claims, or why not. */
export async function redeemCode(
  config: OidcConfig,
  attempt: Attempt,
  code: string,
  redirectUri: string,
): Promise<Result<JWTPayload, string>> {
  const meta = await discover(config.issuer);
  if (!meta.ok) return meta;
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: attempt.verifier,
  });
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded" });
  if (config.clientSecret === null) body.set("client_id", config.clientId);
  else {
    // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
    const pair = `${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`;
    headers.set("Authorization", `Basic ${btoa(pair)}`);
  }
  let idToken: unknown;
  try {
    const res = await fetch(meta.value.token_endpoint, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    if (!res.ok) return err(`The identity provider refused the sign-in (${res.status}).`);
    idToken = ((await res.json()) as { id_token?: unknown }).id_token;
  } catch {
    return err("The identity provider could not be reached.");
  }
  if (typeof idToken !== "string") return err("The identity provider sent no ID token.");
  return verifyIdToken(config, meta.value.jwks_uri, idToken, attempt.nonce);
}

/** OIDC Core §3.1.3.7: signature, issuer, audience, expiry, and this attempt's nonce. */
export async function verifyIdToken(
  config: OidcConfig,
  jwksUri: string,
  idToken: string,
  nonce: string,
): Promise<Result<JWTPayload, string>> {
  try {
    const { payload } = await jwtVerify(idToken, keySetOf(jwksUri), {
      issuer: config.issuer,
      audience: config.clientId,
      requiredClaims: ["sub", "exp", "iat"],
    });
    if (payload.nonce !== nonce) return err("The ID token's nonce is not this sign-in's.");
    // §3.1.3.7 item 4: with several audiences, the token must be meant for this client.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== config.clientId) {
      return err("The ID token was issued to another client.");
    }
    return ok(payload);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return err(`The ID token is not valid (${typeof code === "string" ? code : "unverifiable"}).`);
  }
}
