// Variables the worker reads that wrangler.toml must not declare, so `wrangler types` cannot
// see them: they are set only for local runs or as secrets, never by `wrangler deploy`.
interface Env {
  /**
   * The development key: set by `npm run dev` (`wrangler dev --var`) and vitest.config.ts,
   * and honoured only on a loopback host (src/http/auth.ts).
   */
  DEV_KEY?: string;
  /**
   * Signs operator console sessions (src/console/session.ts): a Worker secret of at least
   * 32 characters (`wrangler secret put CONSOLE_SECRET`); `npm run dev` sets a random one.
   */
  CONSOLE_SECRET?: string;
}

// Set per deployment (`wrangler secret put`, or `--var` locally) when approvals should be
// announced; see docs/approvals.md.
interface Env {
  /** Where approval requests, decisions and expiries are POSTed (Slack, a relay, a pager). */
  APPROVAL_WEBHOOK_URL?: string;
  /** The HMAC-SHA256 secret the webhook body is signed with; no signature, no delivery. */
  APPROVAL_WEBHOOK_SECRET?: string;
}

// Set per deployment (`wrangler deploy --var` or the dashboard) to serve /mcp to MCP hosts.
interface Env {
  /**
   * The fence's public origin (`https://fence.example.com`): the OAuth issuer, and the
   * resource `${PUBLIC_URL}/mcp` its tokens are bound to (docs/connectors.md). Unset, only
   * local development serves OAuth, at the request's own loopback origin.
   */
  PUBLIC_URL?: string;
}

// Set by the OAuth provider (src/oauth/provider.ts) on the env it hands the app.
interface Env {
  /** The OAuth helpers: parse an authorization request, consent, complete it, list grants. */
  OAUTH_PROVIDER?: import("@cloudflare/workers-oauth-provider").OAuthHelpers;
}

// A secret (`wrangler secret put OTEL_EXPORTER_OTLP_HEADERS`): the telemetry backend's key.
interface Env {
  /** Headers of every OTLP export, `name=value,name2=value2` (docs/operations.md). */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
}

// Set per deployment to let people sign in (docs/security.md#people): an OpenID Connect
// provider, Cloudflare Access, or both.
interface Env {
  /** The OpenID provider's issuer (`https://idp.example.com`); with OIDC_CLIENT_ID, turns it on. */
  OIDC_ISSUER?: string;
  /** The fence's client id at the provider. */
  OIDC_CLIENT_ID?: string;
  /** The fence's client secret at the provider: a Worker secret. */
  OIDC_CLIENT_SECRET?: string;
  /** The Cloudflare Access team domain (`example.cloudflareaccess.com`); with ACCESS_AUD, on. */
  ACCESS_TEAM_DOMAIN?: string;
  /** The Access application's audience (AUD) tag. */
  ACCESS_AUD?: string;
}

// A secret (`wrangler secret put CONNECTION_KEYS`) when a contract calls its upstream as the
// principal: the keys their upstream tokens are encrypted under (docs/security.md).
interface Env {
  /** `kid:key` pairs, comma-separated, each key 32 bytes as base64url; the first encrypts. */
  CONNECTION_KEYS?: string;
}
