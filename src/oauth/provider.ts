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
  OAuthError,
  OAuthProvider,
  type OAuthProviderOptions,
} from "@cloudflare/workers-oauth-provider";
import type { Fence } from "../core/policy.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { approverAlive } from "./approver.ts";
import { refusedClientIds } from "./cimd-address.ts";
import { refusedAuthorization } from "./consent-page.tsx";
import type { GrantProps } from "./grant.ts";
import { guardRegistration, REGISTRATION_TTL_S, registrationRefusal } from "./registration.ts";
import { guardTokenRequest, REFRESH_TTL_S } from "./token-endpoint.ts";

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

/** Where the fence is served, as the library's options depend on it. */
interface Served {
  /** The origin OAuth is served at (oauthOrigin). */
  origin: string;
  /** Whether requests are under local development (where the development key is honoured). */
  local: boolean;
  fence: Fence;
  app: Handler;
}

/** The library's options for the fence as `served`. */
export function providerOptions(served: Served, env: Env): OAuthProviderOptions<Env> {
  const { origin, app, fence, local } = served;
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
    clientRegistrationTTL: REGISTRATION_TTL_S,
    clientRegistrationCallback: ({ clientMetadata }) => registrationRefusal(clientMetadata),
    // A grant is as alive as whoever approved it: an `invalid_grant` here revokes it.
    async tokenExchangeCallback({ props, env: e }) {
      if (!(await approverAlive(e, fence, props as GrantProps, local))) {
        throw new OAuthError("invalid_grant", {
          description: "Whoever approved this grant no longer operates this fence's tenant.",
        });
      }
    },
  };
}

const providers = new Map<string, OAuthProvider<Env>>();

function providerFor(served: Served, env: Env): OAuthProvider<Env> {
  const key = `${served.origin} ${served.local} ${accessTtl(env)}`;
  let provider = providers.get(key);
  if (provider === undefined) {
    provider = new OAuthProvider(providerOptions(served, env));
    providers.set(key, provider);
  }
  return provider;
}

/**
 * The REST API's paths: authenticated by API keys, never by OAuth, and none of the provider's
 * endpoints (`/mcp`, `/oauth/*`, `/.well-known/*`) lies under it.
 */
const API_PREFIX = "/v1/";

/**
 * Whether `url` (absolute, as workerd hands it over) names a path under the REST API. Read from
 * the string, not parsed: a call pays no URL parse for it. A spelling this misses (a
 * percent-encoded prefix) goes through the provider, which hands it to the app as well.
 */
export function isApiPath(url: string): boolean {
  const scheme = url.indexOf("://");
  return scheme > 0 && url.startsWith(API_PREFIX, url.indexOf("/", scheme + 3));
}

/**
 * The worker's `fetch`: OAuth and `/mcp` through the provider, everything else to the app. The
 * REST API goes to the app directly: the provider would only hand it on, after parsing its URL
 * and matching it against each of its endpoints on every call.
 * Every request on which the library may fetch a Client ID Metadata Document names its client
 * at the authorization endpoint (the query's `client_id`, which the consent page's every step
 * carries) or at the token endpoint (which also revokes); both are checked here, before the
 * library sees them (cimd-address.ts).
 */
export function withOAuth(app: Handler, fence: Fence): Handler {
  return {
    async fetch(request, env, ctx) {
      if (isApiPath(request.url)) return app.fetch(request, env, ctx);
      const origin = oauthOrigin(request, env);
      if (origin === null) return app.fetch(request, env, ctx);
      const served = {
        origin,
        local: isLocalDevelopment(request.headers, request.url),
        fence,
        app,
      };
      const provider = providerFor(served, env);
      const url = new URL(request.url);
      if (url.pathname === AUTHORIZE_PATH) {
        const refused = refusedClientIds(url.searchParams.getAll("client_id"));
        if (refused !== null) return refusedAuthorization(refused);
      }
      if (request.method === "POST" && url.pathname === TOKEN_PATH) {
        const api = getOAuthApi(providerOptions(served, env), env);
        return guardTokenRequest(request, env, api, (r) => provider.fetch(r, env, ctx));
      }
      if (request.method === "POST" && url.pathname === REGISTER_PATH) {
        return guardRegistration(request, env, (r) => provider.fetch(r, env, ctx));
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
