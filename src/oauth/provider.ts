/**
 * The fence as an OAuth 2.1 authorization server and the protected resource `/mcp`, for MCP
 * hosts (MCP authorization spec), through `@cloudflare/workers-oauth-provider`: RFC 9728 and
 * RFC 8414 metadata, PKCE (S256 only), dynamic registration (RFC 7591), Client ID Metadata
 * Documents, audience-bound tokens (RFC 8707), revocation (RFC 7009). The library's resource
 * must be known when it is built, and it depends on where the fence runs: the configured
 * `PUBLIC_URL`, or under local development the request's own loopback origin. One provider is
 * built per such origin, on first use.
 */
import {
  getOAuthApi,
  OAuthProvider,
  type OAuthProviderOptions,
} from "@cloudflare/workers-oauth-provider";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { guardRefresh, REFRESH_TTL_S } from "./refresh-reuse.ts";

/** The page where a person signs in and consents (served by the console's app). */
export const AUTHORIZE_PATH = "/console/connect";
/** The library's token and revocation endpoint. */
export const TOKEN_PATH = "/oauth/token";
/** Dynamic client registration (RFC 7591), for clients that do not publish CIMD yet. */
export const REGISTER_PATH = "/oauth/register";
/** The connector URL: the one protected resource. */
export const RESOURCE_PATH = "/mcp";

/** RFC 9728 metadata of the origin; the library serves only the path-suffixed form for /mcp. */
const ROOT_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The scope any use of `/mcp` needs; the consent grants it. */
export const TOOLS_SCOPE = "tools";

/** Access tokens live ten minutes unless `OAUTH_ACCESS_TOKEN_TTL_S` says otherwise. */
const DEFAULT_ACCESS_TTL_S = 600;

/** What the provider wraps: the worker's app, which also answers `/mcp` with a grant. */
export interface Handler {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

/**
 * The origin OAuth is served at for this request: the configured public URL, or under local
 * development the request's own origin; null when neither applies (OAuth is then off, and
 * `/mcp` answers 401 with no grant).
 */
export function oauthOrigin(request: Request, env: Env): string | null {
  if (env.PUBLIC_URL !== undefined && env.PUBLIC_URL !== "") {
    return new URL(env.PUBLIC_URL).origin;
  }
  return isLocalDevelopment(request.headers, request.url) ? new URL(request.url).origin : null;
}

function accessTtl(env: Env): number {
  const ttl = Number(env.OAUTH_ACCESS_TOKEN_TTL_S);
  return Number.isSafeInteger(ttl) && ttl >= 60 ? ttl : DEFAULT_ACCESS_TTL_S;
}

/** The library's options for the fence at `origin`. */
export function providerOptions(origin: string, env: Env, app: Handler): OAuthProviderOptions<Env> {
  return {
    apiRoute: RESOURCE_PATH,
    apiHandler: { fetch: (request, e, ctx) => app.fetch(request, e, ctx) },
    defaultHandler: { fetch: (request, e, ctx) => app.fetch(request, e, ctx) },
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [TOOLS_SCOPE, "offline_access"],
    requiredScopes: [TOOLS_SCOPE],
    resourceMetadata: {
      resource: `${origin}${RESOURCE_PATH}`,
      authorization_servers: [origin],
      bearer_methods_supported: ["header"],
      resource_name: "toolfence",
    },
    clientIdMetadataDocumentEnabled: true,
    accessTokenTTL: accessTtl(env),
    refreshTokenTTL: REFRESH_TTL_S,
  };
}

const providers = new Map<string, OAuthProvider<Env>>();

function providerFor(origin: string, env: Env, app: Handler): OAuthProvider<Env> {
  const key = `${origin} ${accessTtl(env)}`;
  let provider = providers.get(key);
  if (provider === undefined) {
    provider = new OAuthProvider(providerOptions(origin, env, app));
    providers.set(key, provider);
  }
  return provider;
}

/** The worker's `fetch`: OAuth and `/mcp` through the provider, everything else to the app. */
export function withOAuth(app: Handler): Handler {
  return {
    async fetch(request, env, ctx) {
      const origin = oauthOrigin(request, env);
      if (origin === null) return app.fetch(request, env, ctx);
      const provider = providerFor(origin, env, app);
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === TOKEN_PATH) {
        const api = getOAuthApi(providerOptions(origin, env, app), env);
        return guardRefresh(request, env, api, (r) => provider.fetch(r, env, ctx));
      }
      if (url.pathname === ROOT_METADATA_PATH) {
        // RFC 9728 §3.1: the fence has one resource, so the origin's own document is /mcp's.
        url.pathname = `${ROOT_METADATA_PATH}${RESOURCE_PATH}`;
        return provider.fetch(new Request(url, request), env, ctx);
      }
      return provider.fetch(request, env, ctx);
    },
  };
}
