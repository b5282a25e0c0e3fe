/**
 * The upstream connections part of the OpenAPI document (src/connections/, docs/mcp-upstreams.md,
 * "OAuth-protected MCP servers"): the page a refused call's `connect_url` opens, the callback an
 * upstream's authorization server sends the person back to, and the fence's Client ID Metadata
 * Document; and the console's connection pages (docs/console.md, "Connections"): a principal's
 * own connections and their Delete form, the tenant's, revoked one at a time or all of one
 * upstream's. The pages answer in HTML for a person's browser, so they are written out here.
 */
type Json = Record<string, unknown>;

const page = (description: string): Json => ({ description, content: { "text/html": {} } });

const LINK = {
  name: "link",
  in: "query",
  required: true,
  description:
    "The connect link a refused call's `connect_url` carries (sealed; single use, ten minutes).",
  schema: { type: "string" },
};

/** The `done` a form's answer sends back to the page, which says how many were deleted. */
const DONE_PARAMETER = {
  name: "done",
  in: "query",
  required: false,
  schema: { type: "string", pattern: "^[0-9]{1,4}$" },
};

/** The console's pages take its session cookie (or Cloudflare Access in front of them). */
const CONSOLE = [{ consoleSession: [] }];

/** A console form's answer: back to its page, `done` the number of connections deleted. */
const DONE = (page: string): Json => ({
  description: `Back to ${page} with \`?done=<n>\`, how many connections were deleted (0 when none was the signed-in principal's, or the tenant's, or the form was not confirmed). Each one deleted is revoked at the upstream's RFC 7009 endpoint when its metadata names one.`,
  headers: { Location: { schema: { type: "string" } } },
});

/** Answers every console form shares: no session, or a form from another origin. */
const FORM_REFUSALS: Json = {
  401: page("No console session (it ended): sign in again."),
  403: page("A form from another origin (CSRF)."),
};

/** A form body of string fields, all required. */
const form = (fields: Record<string, Json>): Json => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: { type: "object", required: Object.keys(fields), properties: fields },
    },
  },
});

const CONNECTION_ID = {
  type: "string",
  pattern: "^cn_[0-9a-f]{24}$",
  description: "The connection's id, as its audit entries name it.",
};

/** The connection paths, keyed by path. */
export const CONNECTION_PATHS: Record<string, Json> = {
  "/console/connections/connect": {
    get: {
      operationId: "connectUpstreamPage",
      summary:
        "The connect page of an upstream called as the principal: names the upstream, the tool and the caller, and asks whoever continues to be that caller.",
      security: [],
      parameters: [LINK],
      responses: {
        200: page("The page, with its form."),
        400: page("A link the fence did not seal."),
        410: page("A link past its ten minutes."),
      },
    },
    post: {
      operationId: "connectUpstream",
      summary:
        "Continue to the upstream's authorization server (PKCE S256, state, RFC 8707 resource) as the caller: their console session, or the key that made the call. The link's nonce is spent.",
      security: [],
      requestBody: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: {
              type: "object",
              required: ["link"],
              properties: {
                link: { type: "string" },
                key: {
                  type: "string",
                  description: "The key that made the call, when not signed in.",
                },
              },
            },
          },
        },
      },
      responses: {
        200: page("A page that goes on to the authorization server; the flow's cookie is set."),
        403: page("Not the caller, or a form from another origin (CSRF)."),
        409: page("The link was used already."),
        410: page("A link past its ten minutes."),
        502: page("The upstream's OAuth metadata could not be read."),
      },
    },
  },
  "/console/connections/callback": {
    get: {
      operationId: "connectUpstreamCallback",
      summary:
        "The redirect back from the upstream's authorization server: checks the flow's state (this browser's cookie), iss (RFC 9207), redeems the code with its PKCE verifier and stores the tokens sealed.",
      security: [],
      parameters: ["code", "state", "iss", "error"].map((name) => ({
        name,
        in: "query",
        required: false,
        schema: { type: "string" },
      })),
      responses: {
        200: page("Connected."),
        400: page("Another browser's or a forged answer, a refusal, or another issuer."),
      },
    },
  },
  "/console/connections": {
    get: {
      operationId: "listOwnConnections",
      summary:
        "The signed-in principal's upstream connections: upstream, the upstream's subject, scopes, since when, last used, each with a Delete form. Never a token.",
      security: CONSOLE,
      parameters: [DONE_PARAMETER],
      responses: {
        200: page("The page."),
        303: { description: "No session: to the sign-in page, which comes back here." },
      },
    },
  },
  "/console/connections/delete": {
    post: {
      operationId: "deleteOwnConnection",
      summary:
        "Delete one of the signed-in principal's own connections and revoke it at the upstream; their next call to its tools asks them to connect again.",
      security: CONSOLE,
      requestBody: form({ id: CONNECTION_ID }),
      responses: { 303: DONE("/console/connections"), ...FORM_REFUSALS },
    },
  },
  "/console/connections/tenant": {
    get: {
      operationId: "listTenantConnections",
      summary:
        "Every upstream connection of the signed-in operator's tenant, with whose each is, a Revoke form per connection and a Revoke all form per upstream. Never a token.",
      security: CONSOLE,
      parameters: [DONE_PARAMETER],
      responses: {
        200: page("The page."),
        303: { description: "No session: to the sign-in page, which comes back here." },
      },
    },
  },
  "/console/connections/tenant/revoke": {
    post: {
      operationId: "revokeTenantConnection",
      summary:
        "An operator revokes one connection of the tenant, whoever's it is: deleted, and revoked at the upstream.",
      security: CONSOLE,
      requestBody: form({
        owner_id: {
          type: "string",
          description: "Whose it is: the owner's id, as the tenant page's form carries it.",
        },
        id: CONNECTION_ID,
      }),
      responses: { 303: DONE("/console/connections/tenant"), ...FORM_REFUSALS },
    },
  },
  "/console/connections/tenant/revoke-upstream": {
    post: {
      operationId: "revokeUpstreamConnections",
      summary:
        "An operator revokes every connection of the tenant to one upstream (its resource URL), once confirmed.",
      security: CONSOLE,
      requestBody: form({
        upstream: { type: "string", description: "The upstream's URL, as the page lists it." },
        confirm: { type: "string", enum: ["yes"], description: "Nothing is revoked without it." },
      }),
      responses: { 303: DONE("/console/connections/tenant"), ...FORM_REFUSALS },
    },
  },
  "/oauth/client.json": {
    get: {
      operationId: "clientMetadataDocument",
      summary:
        "The fence's Client ID Metadata Document as an OAuth client of upstreams: `client_id` is this URL; served on an HTTPS PUBLIC_URL only.",
      security: [],
      responses: {
        200: { description: "The document.", content: { "application/json": {} } },
        404: {
          description: "No HTTPS PUBLIC_URL.",
          content: { "application/problem+json": {} },
        },
      },
    },
  },
};
