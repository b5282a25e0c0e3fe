/**
 * Dynamic client registration (RFC 7591) is open to anyone, so what one registration may
 * cost is bounded: registrations per client address (`CF-Connecting-IP`) by the
 * REGISTRATION_LIMITER binding, the size of what a client may register, and how long a
 * registration that is never used is kept.
 *
 * A registration lasts {@link REGISTRATION_TTL_S} (a refresh token's lifetime: a client unused
 * that long holds no live grant), renewed by the library when the client exchanges a token
 * past half of it. A registration that no token request ever used is kept only
 * {@link UNUSED_REGISTRATION_TTL_S}: its record is written again with that expiry, and the
 * library's renewal at the client's first token exchange gives it the full lifetime.
 */
import type { ClientRegistrationCallbackResult } from "@cloudflare/workers-oauth-provider";
import { REFRESH_TTL_S } from "./token-endpoint.ts";

/** A used registration's lifetime, renewed while the client exchanges tokens. */
export const REGISTRATION_TTL_S = REFRESH_TTL_S;

/** How long a registration is kept until its client first exchanges a token. */
export const UNUSED_REGISTRATION_TTL_S = 24 * 3600;

/** The most redirect URIs one client registers (a native app, a web app, a few ports). */
export const MAX_REDIRECT_URIS = 10;
/** The longest URI a client registers (redirect, logo, home, policy, terms, JWKS). */
export const MAX_URI_CHARS = 2048;
/** The longest client name: the consent page and the grants page show it. */
export const MAX_CLIENT_NAME_CHARS = 100;
/** The most metadata one registration stores, as JSON. */
export const MAX_METADATA_BYTES = 8 * 1024;

const URI_MEMBERS = ["client_uri", "logo_uri", "policy_uri", "tos_uri", "jwks_uri"] as const;

function refusal(description: string): ClientRegistrationCallbackResult {
  return { code: "invalid_client_metadata", description };
}

/** Why the metadata may not be registered (RFC 7591 §3.2.2), or undefined to register it. */
export function registrationRefusal(
  metadata: Record<string, unknown>,
): ClientRegistrationCallbackResult | undefined {
  if (new TextEncoder().encode(JSON.stringify(metadata)).byteLength > MAX_METADATA_BYTES) {
    return refusal(`Client metadata is limited to ${MAX_METADATA_BYTES} bytes.`);
  }
  const name = metadata.client_name;
  if (typeof name === "string" && [...name].length > MAX_CLIENT_NAME_CHARS) {
    return refusal(`client_name is limited to ${MAX_CLIENT_NAME_CHARS} characters.`);
  }
  const redirects = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  if (redirects.length > MAX_REDIRECT_URIS) {
    return refusal(`A client registers at most ${MAX_REDIRECT_URIS} redirect_uris.`);
  }
  const uris = [...redirects, ...URI_MEMBERS.map((member) => metadata[member])];
  if (uris.some((uri) => typeof uri === "string" && uri.length > MAX_URI_CHARS)) {
    return refusal(`A registered URI is limited to ${MAX_URI_CHARS} characters.`);
  }
  return undefined;
}

/** The registration endpoint's answer when an address registers too often. */
function tooMany(): Response {
  return Response.json(
    {
      error: "invalid_request",
      error_description: "Too many client registrations from this address; wait a minute.",
    },
    { status: 429, headers: { "Retry-After": "60", "Cache-Control": "no-store" } },
  );
}

/**
 * Register through the library (`register`) at most as often as the client's address may,
 * and keep a new registration only {@link UNUSED_REGISTRATION_TTL_S} until it is used.
 */
export async function guardRegistration(
  request: Request,
  env: Env,
  register: (request: Request) => Promise<Response>,
): Promise<Response> {
  const address = request.headers.get("CF-Connecting-IP") ?? "unknown";
  const { success } = await env.REGISTRATION_LIMITER.limit({ key: `ip:${address}` });
  if (!success) return tooMany();
  const answer = await register(request);
  if (answer.status !== 201) return answer;
  const { client_id: clientId } = (await answer.clone().json()) as { client_id: string };
  const key = `client:${clientId}`;
  const record = await env.OAUTH_KV.get<Record<string, unknown>>(key, "json");
  if (record !== null) {
    // `registrationExpiresAt` is the library's stamp of when the record lapses; a stamp under
    // half the full lifetime makes its first successful token exchange renew the record.
    const expiresAt = Math.floor(Date.now() / 1000) + UNUSED_REGISTRATION_TTL_S;
    await env.OAUTH_KV.put(key, JSON.stringify({ ...record, registrationExpiresAt: expiresAt }), {
      expirationTtl: UNUSED_REGISTRATION_TTL_S,
    });
  }
  return answer;
}
