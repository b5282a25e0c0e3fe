/**
 * What the fence checks before the library's token endpoint (`POST /oauth/token`, which also
 * serves revocation, RFC 7009). The fence reads each request exactly as the library does
 * (the media type compared case-insensitively without parameters, the form read whole by
 * `Request.formData()`), so nothing the library would accept passes unseen, and refuses what
 * it cannot read.
 *
 * Two checks:
 * - Every client id the request presents (the form's `client_id`, HTTP Basic credentials,
 *   the `iss` of a `client_assertion`) may be a Client ID Metadata Document URL that the
 *   library fetches; one naming a private or loopback address is refused before any fetch
 *   (cimd-address.ts), with the answer an unknown client gets.
 * - A refresh token works once. OAuth 2.1 §4.3.1 and the OAuth security BCP (RFC 9700
 *   §4.14.2) ask a server that rotates refresh tokens to treat a second use of one as theft
 *   and revoke the grant. The library rotates tokens but keeps the previous one valid (for a
 *   client that lost the answer) and only refuses older ones; the fence records each refresh
 *   token it exchanged, by its SHA-256, and revokes the whole grant when one comes back.
 *
 * | key | value |
 * |---|---|
 * | `tf-spent:<sha256 hex of the refresh token>` | `1`, expiring with the grant |
 *
 * KV is eventually consistent: two uses of one token a few seconds apart at two locations
 * may both be seen as first uses; the library's rotation still lets only one chain continue.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { decodeJwt } from "jose";
import { sha256Hex } from "../core/canonical.ts";
import { refusedClientIds } from "./cimd-address.ts";

/** A grant (its refresh token) lives 30 days after consent; the person consents again then. */
export const REFRESH_TTL_S = 30 * 24 * 3600;

const FORM_TYPE = "application/x-www-form-urlencoded";

function spentKey(digest: string): string {
  return `tf-spent:${digest}`;
}

/** RFC 6749 §5.2: the token endpoint's error answer. */
function tokenError(status: number, error: string, description: string): Response {
  return Response.json(
    { error, error_description: description },
    { status, headers: { "Cache-Control": "no-store" } },
  );
}

/** RFC 7617 Basic credentials' user name, form-decoded as RFC 6749 §2.3.1 asks; or undefined. */
function basicClientId(header: string | null): string | undefined {
  const m = /^basic[ \t]+(\S+)\s*$/i.exec(header ?? "");
  if (m?.[1] === undefined) return undefined;
  try {
    const credentials = atob(m[1]);
    const colon = credentials.indexOf(":");
    return colon < 0
      ? undefined
      : decodeURIComponent(credentials.slice(0, colon).replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** What a token request says, read as the library reads it. */
interface TokenRequest {
  /** Every client id it presents, by any client authentication method. */
  clientIds: (string | undefined)[];
  /** The refresh token of a `refresh_token` grant, or null. */
  refresh: string | null;
}

/**
 * The request read as the library will read it: null when the library refuses it before
 * looking at any client (not a form), a refusal when the fence cannot read what the library
 * could.
 */
async function readTokenRequest(request: Request): Promise<TokenRequest | Response | null> {
  const type = request.headers.get("Content-Type") ?? "";
  if (type.split(";")[0]?.trim().toLowerCase() !== FORM_TYPE) return null;
  let form: FormData;
  try {
    form = await request.clone().formData();
  } catch {
    return tokenError(400, "invalid_request", "The body is not application/x-www-form-urlencoded.");
  }
  const text = (name: string) =>
    form.getAll(name).filter((value): value is string => typeof value === "string");
  const clientIds: (string | undefined)[] = [
    ...text("client_id"),
    basicClientId(request.headers.get("Authorization")),
  ];
  for (const assertion of text("client_assertion")) {
    try {
      const { iss } = decodeJwt(assertion);
      clientIds.push(iss);
    } catch {
      // The library reads the issuer of an assertion it can parse; one the fence cannot
      // parse is refused rather than passed on unseen.
      return tokenError(401, "invalid_client", "Client authentication failed");
    }
  }
  const grant = form.get("grant_type");
  const refresh = grant === "refresh_token" ? form.get("refresh_token") : null;
  return { clientIds, refresh: typeof refresh === "string" ? refresh : null };
}

/**
 * Pass a token or revocation request to the library (`exchange`), refusing a client id that
 * is a metadata document on a private address, refusing a refresh token that was used before
 * and revoking its grant, and recording each refresh token the library accepted.
 */
export async function guardTokenRequest(
  request: Request,
  env: Env,
  api: OAuthHelpers,
  exchange: (request: Request) => Promise<Response>,
): Promise<Response> {
  const read = await readTokenRequest(request);
  if (read === null) return exchange(request);
  if (read instanceof Response) return read;
  if (refusedClientIds(read.clientIds) !== null) {
    // The answer an unknown client gets (RFC 6749 §5.2): nothing says why, or what is there.
    return tokenError(401, "invalid_client", "Client not found");
  }
  if (read.refresh === null) return exchange(request);
  const digest = await sha256Hex(read.refresh);
  if ((await env.OAUTH_KV.get(spentKey(digest))) !== null) {
    // The library's tokens are `userId:grantId:secret`; only the real token has this digest.
    const [userId = "", grantId = ""] = read.refresh.split(":");
    await api.revokeGrant(grantId, userId);
    return tokenError(
      400,
      "invalid_grant",
      "This refresh token was already used; the grant is revoked.",
    );
  }
  const answer = await exchange(request);
  if (answer.ok) {
    await env.OAUTH_KV.put(spentKey(digest), "1", { expirationTtl: REFRESH_TTL_S });
  }
  return answer;
}
