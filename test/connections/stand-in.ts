/**
 * An OAuth-protected MCP server and its authorization server, standing in for the worker's
 * outbound `fetch` in the workers pool: the demo's notes server at `https://notes.example/mcp`
 * (RFC 9728 metadata, 401 with `resource_metadata`, its tools as pinned) and `https://as.example`
 * (RFC 8414 metadata, registration, PKCE S256 checked, RFC 8707 `resource` checked, RFC 9207
 * `iss`, rotating refresh tokens, revocation). The person's consent is a function: it reads the
 * authorization request and answers the redirect back. The real servers are in test/e2e.
 */
import { vi } from "vitest";
import addNotePin from "../../demo/contracts/notes_add_note.pin.json" with { type: "json" };
import whoamiPin from "../../demo/contracts/notes_whoami.pin.json" with { type: "json" };

export const NOTES = "https://notes.example/mcp";
export const AS = "https://as.example";
const PRM = "https://notes.example/.well-known/oauth-protected-resource/mcp";

/** How the stand-in behaves; each test makes its own. */
export interface StandInOptions {
  /** Whether the authorization server takes Client ID Metadata Documents. */
  cimd?: boolean;
  /** Seconds an access token lives. */
  expiresIn?: number;
  /** The `iss` it sends back (its own unless a test says otherwise). */
  iss?: string;
  /**
   * Publish only OpenID Connect Discovery metadata, as an identity provider whose issuer has a
   * path does (`https://as.example/realms/corp/.well-known/openid-configuration`), and no
   * RFC 8414 document.
   */
  openidOnly?: boolean;
  /** Issue opaque access tokens (not JWTs): they say no subject. */
  opaque?: boolean;
  /**
   * Rounds of input `add_note` asks the client for on MCP 2026-07-28 before it answers (a form
   * elicitation of the note's text, then a confirmation); the notes server speaks 2025 only
   * when unset.
   */
  asks?: number;
}

/** One `tools/call` the notes server got on 2026-07-28: its round's state and answers. */
export interface ModernCall {
  tool: string;
  requestState?: string;
  inputResponses?: Record<string, unknown>;
  capabilities?: unknown;
}

/** The issuer of a stand-in that publishes only OpenID Connect Discovery metadata. */
export const OPENID_ISSUER = `${AS}/realms/corp`;

/** An access token, as the stand-in issued it. */
interface Issued {
  sub: string;
  client: string;
  jti: string;
}

function b64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

/** A form body's text (workerd warns when .text() reads a form). */
async function formText(request: Request): Promise<string> {
  return new TextDecoder().decode(await request.arrayBuffer());
}

/** The stand-in, with what it saw for the tests to assert on. */
export class StandIn {
  readonly options: StandInOptions;
  /** Registrations (RFC 7591) it answered. */
  registrations: Record<string, unknown>[] = [];
  /** Authorization requests the person consented to. */
  authorizations: URLSearchParams[] = [];
  /** Token requests by grant type. */
  grants: string[] = [];
  /** Tokens revoked at its revocation endpoint. */
  revoked: string[] = [];
  /** Every token it issued. */
  issued: string[] = [];
  /** Each tool call: its name and the token's subject. */
  calls: { tool: string; sub: string; jti: string }[] = [];
  /** Bearer values the MCP server was sent. */
  bearers: string[] = [];
  /** Each metadata path asked of the authorization server, with the status it answered. */
  metadata: string[] = [];
  /** Its issuer identifier. */
  readonly issuer: string;
  /** Where its endpoints are: `/authorize`, `/token`, `/register`, `/revoke` under it. */
  readonly endpoints: string;
  /** Each 2026-07-28 tool call, in order (only with `asks`). */
  modern: ModernCall[] = [];
  private readonly codes = new Map<string, { sub: string; params: URLSearchParams }>();
  private readonly access = new Map<string, Issued>();
  private readonly refresh = new Map<string, Issued>();
  private n = 0;

  constructor(options: StandInOptions = {}) {
    this.options = options;
    this.issuer = options.openidOnly ? OPENID_ISSUER : AS;
    // Under the issuer's path, as identity providers keep them: none at the SDK's defaults.
    this.endpoints = options.openidOnly ? `${OPENID_ISSUER}/protocol/openid-connect` : AS;
  }

  /** Answer the worker's fetches to the two servers from now on; others go out as before. */
  install(): this {
    const real = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.origin === new URL(NOTES).origin) return this.notes(request);
      if (url.origin === AS) return this.as(request);
      return real(input, init);
    });
    return this;
  }

  /** The person signs in as `sub` and allows: the redirect back, as the browser would follow it. */
  async consent(authorizationUrl: string, sub: string): Promise<string> {
    const url = new URL(authorizationUrl);
    if (`${url.origin}${url.pathname}` !== `${this.endpoints}/authorize`) {
      throw new Error(`not ours: ${url}`);
    }
    const params = url.searchParams;
    if (params.get("code_challenge_method") !== "S256") throw new Error("no PKCE S256");
    this.authorizations.push(params);
    const code = `code-${++this.n}`;
    this.codes.set(code, { sub, params });
    const back = new URL(params.get("redirect_uri") ?? "");
    back.searchParams.set("code", code);
    back.searchParams.set("state", params.get("state") ?? "");
    back.searchParams.set("iss", this.options.iss ?? this.issuer);
    return back.href;
  }

  /** End the access tokens of `sub` only, as a server that cut a token's life short would. */
  dropAccessOf(sub: string): void {
    for (const [token, issued] of this.access) if (issued.sub === sub) this.access.delete(token);
  }

  /** End every token of `sub` at the server, as a person revoking the app there would. */
  revokeAllOf(sub: string): void {
    for (const map of [this.access, this.refresh]) {
      for (const [token, issued] of map) if (issued.sub === sub) map.delete(token);
    }
  }

  private token(sub: string, client: string): Record<string, unknown> {
    const jti = `t-${++this.n}`;
    const accessToken = this.options.opaque
      ? `at-${jti}-${crypto.randomUUID()}`
      : `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify({ sub, jti, client_id: client }))}.x`;
    const refreshToken = `rt-${crypto.randomUUID()}`;
    this.access.set(accessToken, { sub, client, jti });
    this.refresh.set(refreshToken, { sub, client, jti });
    this.issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: this.options.expiresIn ?? 600,
      scope: "notes offline_access",
    };
  }

  private async as(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const endpoint = `${AS}${pathname}`.startsWith(`${this.endpoints}/`)
      ? `${AS}${pathname}`.slice(this.endpoints.length)
      : null;
    if (pathname.includes("/.well-known/")) {
      const published = this.options.openidOnly
        ? `${new URL(OPENID_ISSUER).pathname}/.well-known/openid-configuration`
        : "/.well-known/oauth-authorization-server";
      const found = pathname === published;
      this.metadata.push(`${pathname} ${found ? 200 : 404}`);
      if (!found) return new Response("not found", { status: 404 });
      const openid = this.options.openidOnly
        ? {
            jwks_uri: `${AS}/jwks`,
            subject_types_supported: ["public"],
            id_token_signing_alg_values_supported: ["RS256"],
          }
        : {};
      return json({
        ...openid,
        issuer: this.issuer,
        authorization_endpoint: `${this.endpoints}/authorize`,
        token_endpoint: `${this.endpoints}/token`,
        registration_endpoint: `${this.endpoints}/register`,
        revocation_endpoint: `${this.endpoints}/revoke`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["notes", "offline_access"],
        authorization_response_iss_parameter_supported: true,
        ...(this.options.cimd ? { client_id_metadata_document_supported: true } : {}),
      });
    }
    if (endpoint === "/register" && request.method === "POST") {
      const metadata = (await request.json()) as Record<string, unknown>;
      this.registrations.push(metadata);
      return json({ ...metadata, client_id: `client-${this.registrations.length}` }, 201);
    }
    if (endpoint === "/revoke" && request.method === "POST") {
      const form = new URLSearchParams(await formText(request));
      const token = form.get("token") ?? "";
      this.revoked.push(token);
      this.access.delete(token);
      this.refresh.delete(token);
      return new Response(null, { status: 200 });
    }
    if (endpoint === "/token" && request.method === "POST") {
      return this.tokenEndpoint(new URLSearchParams(await formText(request)));
    }
    return new Response("not found", { status: 404 });
  }

  private async tokenEndpoint(form: URLSearchParams): Promise<Response> {
    const grant = form.get("grant_type") ?? "";
    this.grants.push(grant);
    const invalid = (why: string) => json({ error: "invalid_grant", error_description: why }, 400);
    if (form.get("resource") !== NOTES) return json({ error: "invalid_target" }, 400);
    if (grant === "authorization_code") {
      const code = this.codes.get(form.get("code") ?? "");
      this.codes.delete(form.get("code") ?? "");
      if (code === undefined) return invalid("unknown code");
      const { params, sub } = code;
      if (form.get("redirect_uri") !== params.get("redirect_uri")) return invalid("redirect_uri");
      if (form.get("client_id") !== params.get("client_id")) return invalid("client_id");
      if ((await s256(form.get("code_verifier") ?? "")) !== params.get("code_challenge")) {
        return invalid("PKCE verifier");
      }
      return json(this.token(sub, params.get("client_id") ?? ""));
    }
    if (grant === "refresh_token") {
      const presented = form.get("refresh_token") ?? "";
      const held = this.refresh.get(presented);
      // Rotation: a refresh token works once.
      this.refresh.delete(presented);
      if (held === undefined) return invalid("unknown or spent refresh token");
      return json(this.token(held.sub, held.client));
    }
    return json({ error: "unsupported_grant_type" }, 400);
  }

  private async notes(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/.well-known/oauth-protected-resource/mcp") {
      return json({
        resource: NOTES,
        authorization_servers: [this.issuer],
        scopes_supported: ["notes"],
      });
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.get("Authorization") ?? "")?.[1];
    if (bearer !== undefined) this.bearers.push(bearer);
    const who = bearer === undefined ? undefined : this.access.get(bearer);
    if (who === undefined) {
      return new Response(JSON.stringify({ error: "invalid_token" }), {
        status: 401,
        headers: {
          "WWW-Authenticate": `Bearer error="invalid_token", resource_metadata="${PRM}"`,
        },
      });
    }
    const message = (await request.json()) as {
      id?: number;
      method?: string;
      params?: {
        name?: string;
        arguments?: { text?: string };
        protocolVersion?: string;
        requestState?: string;
        inputResponses?: Record<string, unknown>;
        _meta?: Record<string, unknown>;
      };
    };
    if (message.id === undefined) return new Response(null, { status: 202 });
    const rpc = (result: unknown) => json({ jsonrpc: "2.0", id: message.id, result });
    const asks = this.options.asks;
    if (message.method === "server/discover") {
      if (asks === undefined) {
        const error = { code: -32601, message: "Method not found" };
        return json({ jsonrpc: "2.0", id: message.id, error });
      }
      return rpc({
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        serverInfo: { name: "notes", version: "1" },
      });
    }
    const modern = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== undefined;
    if (asks !== undefined && modern && message.method === "tools/call") {
      return rpc(this.roundOf(message.params ?? {}, asks, who.sub));
    }
    if (message.method === "initialize") {
      return rpc({
        protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "notes", version: "1" },
      });
    }
    if (message.method === "tools/list") {
      const tools = [whoamiPin, addNotePin].map((pin) => ({ name: pin.tool, ...pin.schema }));
      return rpc({ tools });
    }
    const name = message.params?.name ?? "";
    this.calls.push({ tool: name, sub: who.sub, jti: who.jti });
    const result =
      name === "whoami"
        ? { subject: who.sub, client_id: who.client, scope: "notes", token_id: who.jti }
        : {
            note_id: `n-${this.calls.length}`,
            author: who.sub,
            text: message.params?.arguments?.text ?? "",
          };
    return rpc({
      content: [{ type: "text", text: JSON.stringify(result) }],
      structuredContent: result,
    });
  }

  /**
   * A 2026-07-28 `add_note`: rounds 1 to `asks` ask for input (the text, then confirmations),
   * each with its state `round-N`; the answer to the last is the note, its text the first
   * round's answer.
   */
  private roundOf(
    params: Omit<ModernCall, "tool" | "capabilities"> & {
      name?: string;
      _meta?: Record<string, unknown>;
    },
    asks: number,
    sub: string,
  ): Record<string, unknown> {
    const { name = "", requestState, inputResponses, _meta } = params;
    const capabilities = _meta?.["io.modelcontextprotocol/clientCapabilities"];
    this.modern.push({ tool: name, requestState, inputResponses, capabilities });
    const done = Number(/^round-(\d+)$/.exec(requestState ?? "")?.[1] ?? 0);
    if (done < asks) {
      const requestedSchema =
        done === 0
          ? { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
          : { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
      const message = done === 0 ? "What should the note say?" : `Confirm (${done})?`;
      return {
        resultType: "input_required",
        inputRequests: {
          [`ask-${done + 1}`]: {
            method: "elicitation/create",
            params: { message, requestedSchema },
          },
        },
        requestState: `round-${done + 1}`,
      };
    }
    this.calls.push({ tool: name, sub, jti: "modern" });
    const first = this.modern.find((c) => c.inputResponses?.["ask-1"] !== undefined);
    const answer = first?.inputResponses?.["ask-1"] as { content?: { text?: string } } | undefined;
    const result = {
      note_id: `n-${this.calls.length}`,
      author: sub,
      text: answer?.content?.text ?? "",
    };
    return {
      resultType: "complete",
      content: [{ type: "text", text: JSON.stringify(result) }],
      structuredContent: result,
    };
  }
}
