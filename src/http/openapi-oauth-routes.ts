/**
 * The OAuth part of the OpenAPI document: the connector URL `/mcp` and the authorization
 * server's endpoints (src/oauth/, docs/connectors.md). These answer as OAuth does (RFC 6749
 * §5.2 errors, RFC 6750 challenges), not with the decision table's problems, so they are
 * written out here rather than built from the route table.
 */
type Json = Record<string, unknown>;

const oauthError: Json = {
  description: "An OAuth error (RFC 6749 §5.2).",
  content: {
    "application/json": {
      schema: {
        type: "object",
        required: ["error"],
        properties: { error: { type: "string" }, error_description: { type: "string" } },
      },
    },
  },
};

const challenge: Json = {
  description:
    'No valid token for this fence\'s /mcp: `WWW-Authenticate: Bearer resource_metadata="…"`, with `error="invalid_token"` for an invalid, expired or revoked one.',
  headers: { "WWW-Authenticate": { schema: { type: "string" } } },
};

const form = (properties: Json, required: string[]): Json => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": { schema: { type: "object", required, properties } },
  },
});

const metadata = (summary: string, id: string): Json => ({
  get: {
    operationId: id,
    summary,
    security: [],
    responses: { 200: { description: summary, content: { "application/json": {} } } },
  },
});

const mcp = (method: string): Json => ({
  operationId: `connectorMcp${method}`,
  summary: "The connector URL: MCP (Streamable HTTP, JSON) in the OAuth grant's current run.",
  security: [{ oauth: ["tools"] }],
  responses: {
    200: { description: "The JSON-RPC answer.", content: { "application/json": {} } },
    401: challenge,
    403: {
      description:
        'The token lacks the `tools` scope: `error="insufficient_scope"`, `scope="tools"`.',
    },
  },
});

/** The OAuth paths, keyed by path. */
export const OAUTH_PATHS: Record<string, Json> = {
  "/mcp": { post: mcp("Post"), get: mcp("Get"), delete: mcp("Delete") },
  "/.well-known/oauth-protected-resource": metadata(
    "RFC 9728 protected-resource metadata of /mcp.",
    "protectedResourceMetadata",
  ),
  "/.well-known/oauth-protected-resource/mcp": metadata(
    "RFC 9728 protected-resource metadata of /mcp (path-suffixed form).",
    "protectedResourceMetadataMcp",
  ),
  "/.well-known/oauth-authorization-server": metadata(
    "RFC 8414 authorization-server metadata: PKCE S256 only, refresh, CIMD, DCR, revocation.",
    "authorizationServerMetadata",
  ),
  "/console/connect": {
    get: {
      operationId: "authorize",
      summary:
        "Authorization endpoint (code + PKCE S256): sign in, then the consent page that grants tools and a per-run budget.",
      security: [],
      responses: {
        200: { description: "The sign-in or consent page.", content: { "text/html": {} } },
        302: { description: "Back to the client's redirect URI with `code` or `error`." },
        400: { description: "A request that cannot go back to the client (page)." },
      },
    },
  },
  "/oauth/token": {
    post: {
      operationId: "token",
      summary:
        "Token endpoint: authorization_code (with code_verifier) and refresh_token (rotating; a reused refresh token revokes the grant); also RFC 7009 revocation (`token`).",
      security: [],
      requestBody: form(
        {
          grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
          code: { type: "string" },
          code_verifier: { type: "string" },
          redirect_uri: { type: "string" },
          refresh_token: { type: "string" },
          client_id: { type: "string" },
          resource: { type: "string" },
          token: { type: "string" },
        },
        [],
      ),
      responses: {
        200: { description: "Tokens (RFC 6749 §5.1), or an empty revocation answer." },
        400: oauthError,
        401: oauthError,
      },
    },
  },
  "/oauth/register": {
    post: {
      operationId: "registerClient",
      summary: "Dynamic client registration (RFC 7591), for clients without a CIMD URL.",
      security: [],
      requestBody: { required: true, content: { "application/json": {} } },
      responses: {
        201: { description: "The registered client.", content: { "application/json": {} } },
        400: oauthError,
      },
    },
  },
};
