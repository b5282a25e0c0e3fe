/**
 * An OAuth-protected MCP server on loopback for the e2e tests, as the MCP authorization spec has
 * one: its own authorization server (`oidc-provider`, a certified implementation: dynamic
 * registration, PKCE, RFC 8707 resource indicators issuing JWT access tokens bound to the
 * server, RFC 9207 `iss`, refresh rotation, RFC 7009 revocation), and the MCP server built on the
 * official server SDK, which answers 401 with `WWW-Authenticate: Bearer resource_metadata=…`
 * to a request without a valid token, serves its RFC 9728 metadata, and checks every token's
 * signature, issuer, audience and expiry with `jose`. Its tools say whose token they were
 * called with.
 *
 * The authorization server publishes only OpenID Connect Discovery metadata
 * (`/.well-known/openid-configuration`), as many identity providers do: its RFC 8414 document
 * answers 404, so every client of it takes the OpenID fallback.
 *
 * Access tokens live ACCESS_TTL_S, so a test sees one expire. A loopback control endpoint
 * (`/__notes/...`, on the MCP server) tells a test every token the authorization server issued
 * and revoked, and the subjects and token ids the tools were called with.
 */
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import {
  type AuthInfo,
  oauthMetadataResponse,
  requireBearerAuth,
  Server,
  type Tool,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify } from "jose";
import Provider from "oidc-provider";
import { freePort } from "../../scripts/lib/dev-server.ts";

/** Seconds an access token lives: short, so a test can wait one out. */
export const ACCESS_TTL_S = 5;

/** The scope the server's tools need. */
export const NOTES_SCOPE = "notes";

/** What the control endpoint reports. */
export interface NotesSeen {
  /** Every access and refresh token the authorization server issued. */
  issued: string[];
  /** Every token revoked at its revocation endpoint. */
  revoked: string[];
  /** How many refresh-token grants it answered with new tokens. */
  refreshes: number;
  /** Each tool call: the token's subject, id and client. */
  calls: { tool: string; sub: string; jti: string; client_id: string }[];
  /** Each metadata document asked of the authorization server, with the status it answered. */
  metadata: string[];
}

/** A running notes server and its authorization server. */
export interface NotesUpstream {
  /** The MCP endpoint: the resource its tokens are bound to. */
  mcpUrl: string;
  /** The authorization server's issuer. */
  issuer: string;
  /** Stop both. */
  stop: () => Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Node's request as a web Request. */
async function asWeb(req: IncomingMessage, base: string): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await bodyOf(req);
  return new Request(new URL(req.url ?? "/", base), { method, headers, body });
}

/** A web Response, written back to Node's. */
async function send(res: ServerResponse, answer: Response): Promise<void> {
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** The authorization server at `issuer`, issuing tokens for `resource` only. */
function authorizationServer(issuer: string, resource: string, seen: NotesSeen) {
  const provider = new Provider(issuer, {
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return {
            scope: NOTES_SCOPE,
            audience: resource,
            accessTokenTTL: ACCESS_TTL_S,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    scopes: ["openid", "offline_access", NOTES_SCOPE],
    pkce: { required: () => true },
    cookies: { keys: ["toolfence-e2e-notes-cookie-key"] },
    ttl: { RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600 },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  // Every token it answers with, and every one it is asked to revoke, for the tests to look for;
  // no RFC 8414 document, and every metadata request noted.
  provider.use(async (ctx: Koa, next: () => Promise<void>) => {
    if (ctx.path === "/.well-known/oauth-authorization-server") {
      ctx.status = 404;
      seen.metadata.push(`${ctx.path} 404`);
      return;
    }
    await next();
    if (ctx.path.startsWith("/.well-known/")) seen.metadata.push(`${ctx.path} ${ctx.status}`);
    const params = ctx.oidc?.params ?? {};
    if (ctx.path === "/token" && ctx.status === 200 && typeof ctx.body === "object") {
      const body = ctx.body as { access_token?: string; refresh_token?: string };
      for (const t of [body.access_token, body.refresh_token]) if (t) seen.issued.push(t);
      if (params.grant_type === "refresh_token") seen.refreshes++;
    }
    if (ctx.path === "/token/revocation" && typeof params.token === "string") {
      seen.revoked.push(params.token);
    }
  });
  return provider;
}

/** The part of Koa's context the recorder reads. */
interface Koa {
  path: string;
  status: number;
  body: unknown;
  oidc?: { params?: { grant_type?: unknown; token?: unknown } };
}

/** The tools, as the server lists them (JSON Schema, as a server written by hand would). */
const TOOLS: Tool[] = [
  {
    name: "whoami",
    description: "Who the server was called as: the subject, client and scope of the token.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: {
        subject: { type: "string" },
        client_id: { type: "string" },
        scope: { type: "string" },
        token_id: { type: "string" },
      },
      required: ["subject", "client_id", "scope", "token_id"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "add_note",
    description: "Add a note, written by the person the server was called as.",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, maxLength: 200, description: "The note" },
      },
      required: ["text"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        note_id: { type: "string" },
        author: { type: "string" },
        text: { type: "string" },
      },
      required: ["note_id", "author", "text"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
];

/** The MCP server (the SDK's low-level `Server`) for a request whose token `auth` names. */
function notesServer(auth: AuthInfo, seen: NotesSeen): Server {
  const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } });
  const claims = (auth.extra ?? {}) as { sub?: string; jti?: string; client_id?: string };
  const who = { sub: claims.sub ?? "", jti: claims.jti ?? "", client_id: claims.client_id ?? "" };
  server.setRequestHandler("tools/list", () => ({ tools: TOOLS }));
  server.setRequestHandler("tools/call", (request) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as { text?: string };
    seen.calls.push({ tool: name, ...who });
    const result =
      name === "whoami"
        ? {
            subject: who.sub,
            client_id: who.client_id,
            scope: auth.scopes.join(" "),
            token_id: who.jti,
          }
        : { note_id: `n-${seen.calls.length}`, author: who.sub, text: String(args.text ?? "") };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  });
  return server;
}

/** Start the authorization server and the MCP server, each on a free loopback port. */
export async function startNotes(): Promise<NotesUpstream> {
  const [asPort, mcpPort] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${asPort}`;
  const base = `http://127.0.0.1:${mcpPort}`;
  const mcpUrl = `${base}/mcp`;
  const seen: NotesSeen = { issued: [], revoked: [], refreshes: 0, calls: [], metadata: [] };
  const provider = authorizationServer(issuer, mcpUrl, seen);
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const resourceMetadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const gate = requireBearerAuth({
    verifier: {
      verifyAccessToken: async (token: string): Promise<AuthInfo> => {
        const { payload } = await jwtVerify(token, keys, { issuer, audience: mcpUrl });
        return {
          token,
          clientId: String(payload.client_id ?? ""),
          scopes: String(payload.scope ?? "")
            .split(" ")
            .filter(Boolean),
          expiresAt: payload.exp,
          resource: new URL(mcpUrl),
          extra: { sub: payload.sub, jti: payload.jti, client_id: payload.client_id },
        };
      },
    },
    requiredScopes: [NOTES_SCOPE],
    resourceMetadataUrl,
    expectedResource: new URL(mcpUrl),
  });
  const metadata = {
    oauthMetadata: { issuer } as never,
    resourceServerUrl: new URL(mcpUrl),
    scopesSupported: [NOTES_SCOPE],
    resourceName: "notes",
    dangerouslyAllowInsecureIssuerUrl: true,
  };
  const mcp: HttpServer = createServer(async (req, res) => {
    if (req.url?.startsWith("/__notes/")) {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(seen));
      return;
    }
    const request = await asWeb(req, base);
    const described = oauthMetadataResponse(request, metadata);
    if (described !== undefined) return send(res, described);
    if (new URL(request.url).pathname !== "/mcp")
      return send(res, new Response(null, { status: 404 }));
    const auth = await gate(request);
    if (auth instanceof Response) return send(res, auth);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await notesServer(auth, seen).connect(transport);
    return send(res, await transport.handleRequest(request, { authInfo: auth }));
  });
  const as: HttpServer = await new Promise((resolve) => {
    const s = provider.listen(asPort, "127.0.0.1", () => resolve(s));
  });
  await new Promise<void>((resolve) => mcp.listen(mcpPort, "127.0.0.1", resolve));
  const close = (s: HttpServer) => new Promise<void>((resolve) => s.close(() => resolve()));
  return { mcpUrl, issuer, stop: async () => void (await Promise.all([close(as), close(mcp)])) };
}

/** What the notes server at `mcpUrl` has seen so far. */
export async function notesSeen(mcpUrl: string): Promise<NotesSeen> {
  const res = await fetch(new URL("/__notes/seen", mcpUrl));
  return (await res.json()) as NotesSeen;
}
