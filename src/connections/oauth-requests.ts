/**
 * The requests to an upstream's OAuth endpoints the fence makes without the SDK: bounded in
 * time and bytes, revocation (RFC 7009, for which the SDK has no helper), and reading the
 * subject an access token names. Light, so the connections object and the console load it
 * without the SDK.
 */
import type {
  FetchLike,
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { fromBase64Url } from "../core/base64url.ts";
import { trustedOrigin } from "../core/secure-origin.ts";
import { boundedResponse } from "../execute/answer-bound.ts";

/** How long one request to an upstream's OAuth endpoints may take. */
const OAUTH_TIMEOUT_MS = 10_000;

/** The most bytes of one OAuth answer (metadata, registration, tokens) the fence reads. */
const OAUTH_ANSWER_MAX_BYTES = 64 * 1024;

/** The longest upstream subject kept from a token. */
const MAX_SUBJECT_CHARS = 256;

/** `fetch` for the OAuth requests: at most ten seconds and 64 KiB per answer. */
export const oauthFetch: FetchLike = async (input, init) => {
  const timeout = AbortSignal.timeout(OAUTH_TIMEOUT_MS);
  const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  return boundedResponse(await fetch(input, { ...init, signal }), OAUTH_ANSWER_MAX_BYTES);
};

/**
 * Revoke a connection's tokens at the upstream's revocation endpoint (RFC 7009), when its
 * metadata names one: the refresh token (the server should end the grant's access tokens with
 * it, §2.1), else the access token. Whether the server said it did.
 */
export async function revokeTokens(grant: {
  discovery: OAuthDiscoveryState;
  client: OAuthClientInformationMixed;
  tokens: OAuthTokens;
}): Promise<boolean> {
  // RFC 8414 §2 names it; the SDK types it for OAuth metadata, not OpenID's.
  const metadata = grant.discovery.authorizationServerMetadata as { revocation_endpoint?: unknown };
  const endpoint = metadata?.revocation_endpoint;
  if (typeof endpoint !== "string" || !trustedOrigin(endpoint)) return false;
  const { client, tokens } = grant;
  const refresh = tokens.refresh_token;
  const body = new URLSearchParams({
    token: refresh ?? tokens.access_token,
    token_type_hint: refresh === undefined ? "access_token" : "refresh_token",
  });
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded" });
  const secret = "client_secret" in client ? client.client_secret : undefined;
  if (secret === undefined) body.set("client_id", client.client_id);
  else {
    // RFC 6749 §2.3.1: the id and secret form-urlencoded, then Basic.
    const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.set("Authorization", `Basic ${btoa(pair)}`);
  }
  try {
    const res = await oauthFetch(endpoint, { method: "POST", headers, body });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The subject an access token names, when it is a JWT (RFC 9068 §2.2: `sub`); null for an
 * opaque one. The token came straight from the server's token endpoint, so its claims are
 * only read, for the audit to name the upstream identity, never trusted for a decision.
 */
export function subjectOf(token: string): string | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const bytes = fromBase64Url(parts[1] ?? "");
  if (bytes === null) return null;
  try {
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as { sub?: unknown };
    const { sub } = claims;
    return typeof sub === "string" && sub.length <= MAX_SUBJECT_CHARS ? sub : null;
  } catch {
    return null;
  }
}
