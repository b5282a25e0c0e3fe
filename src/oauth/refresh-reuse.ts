/**
 * A refresh token works once. OAuth 2.1 §4.3.1 and the OAuth security BCP (RFC 9700 §4.14.2)
 * ask a server that rotates refresh tokens to treat a second use of one as theft and revoke
 * the grant. The library rotates tokens but keeps the previous one valid (for a client that
 * lost the answer) and only refuses older ones; the fence records each refresh token it
 * exchanged, by its SHA-256, and revokes the whole grant when one comes back.
 *
 * | key | value |
 * |---|---|
 * | `tf-spent:<sha256 hex of the refresh token>` | `1`, expiring with the grant |
 *
 * KV is eventually consistent: two uses of one token a few seconds apart at two locations
 * may both be seen as first uses; the library's rotation still lets only one chain continue.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { sha256Hex } from "../core/canonical.ts";

/** A grant (its refresh token) lives 30 days after consent; the person consents again then. */
export const REFRESH_TTL_S = 30 * 24 * 3600;

/** The largest token request body read here (a refresh token and a few fields). */
const MAX_TOKEN_BODY_BYTES = 8 * 1024;

function spentKey(digest: string): string {
  return `tf-spent:${digest}`;
}

/** RFC 6749 §5.2: the token endpoint's error answer. */
function invalidGrant(description: string): Response {
  return Response.json(
    { error: "invalid_grant", error_description: description },
    { status: 400, headers: { "Cache-Control": "no-store" } },
  );
}

/** The refresh token a token request presents, or null when it is not a refresh. */
async function presentedRefresh(request: Request): Promise<string | null> {
  const type = request.headers.get("Content-Type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return null;
  const text = new TextDecoder().decode(await request.clone().arrayBuffer());
  if (text.length > MAX_TOKEN_BODY_BYTES) return null;
  const form = new URLSearchParams(text);
  if (form.get("grant_type") !== "refresh_token") return null;
  return form.get("refresh_token");
}

/**
 * Pass a token request to the library (`exchange`), refusing a refresh token that was used
 * before and revoking its grant, and recording each refresh token the library accepted.
 */
export async function guardRefresh(
  request: Request,
  env: Env,
  api: OAuthHelpers,
  exchange: (request: Request) => Promise<Response>,
): Promise<Response> {
  const token = await presentedRefresh(request);
  if (token === null) return exchange(request);
  const digest = await sha256Hex(token);
  if ((await env.OAUTH_KV.get(spentKey(digest))) !== null) {
    // The library's tokens are `userId:grantId:secret`; only the real token has this digest.
    const [userId = "", grantId = ""] = token.split(":");
    await api.revokeGrant(grantId, userId);
    return invalidGrant("This refresh token was already used; the grant is revoked.");
  }
  const answer = await exchange(request);
  if (answer.ok) {
    await env.OAUTH_KV.put(spentKey(digest), "1", { expirationTtl: REFRESH_TTL_S });
  }
  return answer;
}
