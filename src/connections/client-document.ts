/**
 * The fence as an OAuth client of upstreams, as it presents itself: where its callback is, its
 * client metadata (RFC 7591 §2) and its Client ID Metadata Document, and the fence's public
 * origin they are on. No SDK here: the app serves the document without loading it.
 */
import type { OAuthClientMetadata } from "@modelcontextprotocol/client";

/** Where the upstream's authorization server sends the person back. */
export const CALLBACK_PATH = "/console/connections/callback";

/** The fence's Client ID Metadata Document, served on an HTTPS origin only. */
export const CLIENT_DOCUMENT_PATH = "/oauth/client.json";

/**
 * The fence's public origin, where the connect page and the callback are: `PUBLIC_URL`, or
 * under local development the request's own origin (as OAuth for MCP hosts has it); null when
 * neither applies, and then no upstream can be connected.
 */
export function fenceOrigin(env: Env, requestUrl: string, local: boolean): string | null {
  const configured = env.PUBLIC_URL;
  if (configured !== undefined && configured !== "") return new URL(configured).origin;
  return local ? new URL(requestUrl).origin : null;
}

/** The fence's client metadata at an upstream's authorization server (RFC 7591 §2). */
export function clientMetadata(origin: string): OAuthClientMetadata {
  return {
    client_name: "toolfence",
    client_uri: origin,
    redirect_uris: [`${origin}${CALLBACK_PATH}`],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    // A public client with PKCE: no secret to keep, so none to leak (OAuth 2.1 §2.1).
    token_endpoint_auth_method: "none",
  };
}

/**
 * The Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): the client's
 * metadata with `client_id` its own URL. Only an HTTPS origin has one: the SDK and servers
 * refuse a plain-HTTP client id, so a fence on loopback registers by RFC 7591 instead.
 */
export function clientDocument(origin: string): Record<string, unknown> | null {
  if (!origin.startsWith("https://")) return null;
  return {
    client_id: `${origin}${CLIENT_DOCUMENT_PATH}`,
    ...clientMetadata(origin),
    application_type: "web",
  };
}

/** The document `GET /oauth/client.json` serves: on the configured HTTPS `PUBLIC_URL` only. */
export function servedClientDocument(env: Env): Record<string, unknown> | null {
  const configured = env.PUBLIC_URL;
  return configured === undefined || configured === ""
    ? null
    : clientDocument(new URL(configured).origin);
}
