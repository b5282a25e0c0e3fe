/**
 * The upstream connections part of the OpenAPI document (src/connections/, docs/mcp-upstreams.md,
 * "OAuth-protected MCP servers"): the page a refused call's `connect_url` opens, the callback an
 * upstream's authorization server sends the person back to, and the fence's Client ID Metadata
 * Document. The pages answer in HTML for a person's browser, so they are written out here.
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
