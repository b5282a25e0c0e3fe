/**
 * People in tests: the fence's app with a policy that names operators and a configured
 * identity provider, a browser that keeps its cookies, and a stand-in OpenID provider and
 * Cloudflare Access team answering the fence's outbound fetches with keys of their own (jose).
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { vi } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { buildApp } from "../../src/app.ts";
import type { Operators } from "../../src/core/people.ts";
import type { Fence } from "../../src/core/policy.ts";

export const ORIGIN = "http://localhost";
export const CLIENT_ID = "toolfence-console";
export const CLIENT_SECRET = "the-client-secret";
export const ACCESS_AUD = "aud-tag-0123456789";

/** The demo fence with an `operators` section. */
export function fenceWith(operators: Partial<Operators>): Fence {
  const full: Operators = { allow: [], tenant: "default", ...operators };
  return { ...FENCE, policy: { ...FENCE.policy, operators: full } };
}

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/** A key pair and its public JWKS. */
async function signingKey(kid: string): Promise<{ pair: KeyPair; jwks: { keys: unknown[] } }> {
  const pair = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: "RS256", use: "sig" };
  return { pair, jwks: { keys: [jwk] } };
}

/** Sign `claims` with `pair` (RS256, `kid`). */
export function sign(pair: KeyPair, kid: string, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).sign(pair.privateKey);
}

/**
 * An OpenID provider on its own origin: discovery, JWKS, and a token endpoint that answers any
 * code with an ID token for `person`, which a test may bend (`idToken`).
 */
export class StandInProvider {
  readonly issuer = `https://idp-${crypto.randomUUID().slice(0, 8)}.example`;
  person: JWTPayload = { sub: "person-1", email: "ada@example.com", email_verified: true };
  /** Changes the next ID token: given the claims the provider would sign, the ones it signs. */
  idToken: (claims: JWTPayload) => JWTPayload = (c) => c;
  /** The nonce the last authorization request carried. */
  nonce = "";
  /** What the token endpoint was last sent. */
  tokenRequest: { body: URLSearchParams; authorization: string | null } | null = null;
  private key!: Awaited<ReturnType<typeof signingKey>>;
  private other!: Awaited<ReturnType<typeof signingKey>>;
  /** Sign with a key the JWKS does not publish. */
  foreignKey = false;

  async start(): Promise<this> {
    this.key = await signingKey("k1");
    this.other = await signingKey("k1");
    return this;
  }

  async answer(url: URL, init: RequestInit | undefined): Promise<Response | null> {
    if (url.origin !== this.issuer) return null;
    if (url.pathname === "/.well-known/openid-configuration") {
      return Response.json({
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/auth`,
        token_endpoint: `${this.issuer}/token`,
        jwks_uri: `${this.issuer}/jwks`,
      });
    }
    if (url.pathname === "/jwks") return Response.json(this.key.jwks);
    if (url.pathname === "/token") {
      const body = new URLSearchParams(String(init?.body ?? ""));
      const authorization = new Headers(init?.headers).get("Authorization");
      this.tokenRequest = { body, authorization };
      const now = Math.floor(Date.now() / 1000);
      const claims = this.idToken({
        iss: this.issuer,
        aud: CLIENT_ID,
        iat: now,
        exp: now + 300,
        nonce: this.nonce,
        ...this.person,
      });
      const pair = this.foreignKey ? this.other.pair : this.key.pair;
      return Response.json({ id_token: await sign(pair, "k1", claims), token_type: "Bearer" });
    }
    return new Response("not found", { status: 404 });
  }
}

/** A Cloudflare Access team: its certs, and tokens signed with its key (or another). */
export class StandInAccess {
  readonly domain = `team-${crypto.randomUUID().slice(0, 8)}.cloudflareaccess.com`;
  private key!: Awaited<ReturnType<typeof signingKey>>;
  private other!: Awaited<ReturnType<typeof signingKey>>;

  async start(): Promise<this> {
    this.key = await signingKey("a1");
    this.other = await signingKey("a1");
    return this;
  }

  answer(url: URL): Response | null {
    if (url.host !== this.domain) return null;
    if (url.pathname === "/cdn-cgi/access/certs") return Response.json(this.key.jwks);
    return new Response("not found", { status: 404 });
  }

  /** An Access JWT for `email`, with `overrides`, signed by the team's key or `foreign`. */
  token(email: string, overrides: JWTPayload = {}, foreign = false): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: `https://${this.domain}`,
      aud: [ACCESS_AUD],
      sub: `access-${email}`,
      email,
      iat: now,
      exp: now + 300,
      ...overrides,
    };
    return sign(foreign ? this.other.pair : this.key.pair, "a1", claims);
  }
}

/** Route the fence's outbound fetches to the stand-ins; anything else goes out as usual. */
export function serveOutbound(...parties: { answer: StandInProvider["answer"] }[]): void {
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request?.url ?? String(input));
    for (const party of parties) {
      const answer = await party.answer(url, init);
      if (answer !== null) return answer;
    }
    return real(input, init);
  });
}

/** The bindings with a provider and/or Access configured. */
export function bindingsWith(vars: Partial<Env>): Env {
  return { ...env, ...vars } as Env;
}

/** A browser on this machine talking to the app made from `fence` with `bindings`. */
export class PersonBrowser {
  cookies = new Map<string, string>();
  private readonly app: ReturnType<typeof buildApp>;
  private readonly bindings: Env;

  constructor(fence: Fence, bindings: Env) {
    this.app = buildApp(fence);
    this.bindings = bindings;
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    headers.set("CF-Connecting-IP", "127.0.0.1");
    const url = path.startsWith("http") ? path : `${ORIGIN}${path}`;
    const ctx = createExecutionContext();
    const res = await this.app.fetch(new Request(url, { ...init, headers }), this.bindings, ctx);
    await waitOnExecutionContext(ctx);
    for (const set of res.headers.getSetCookie()) {
      const [pair = ""] = set.split(";");
      const at = pair.indexOf("=");
      const value = pair.slice(at + 1);
      if (/Max-Age=0/i.test(set) || value === "") this.cookies.delete(pair.slice(0, at));
      else this.cookies.set(pair.slice(0, at), value);
    }
    return res;
  }
}

/**
 * Go to the provider and back: start the sign-in, note the nonce the provider was sent (the
 * provider signs it into the ID token), and come back with a code and the given state.
 */
export async function signInThrough(
  browser: PersonBrowser,
  idp: StandInProvider,
  opts: { returnTo?: string; state?: string } = {},
): Promise<Response> {
  const query = opts.returnTo === undefined ? "" : `?return=${encodeURIComponent(opts.returnTo)}`;
  const start = await browser.fetch(`/console/oidc/start${query}`);
  if (start.status !== 302)
    throw new Error(`start answered ${start.status}: ${await start.text()}`);
  const to = new URL(start.headers.get("Location") ?? "");
  idp.nonce = to.searchParams.get("nonce") ?? "";
  const state = opts.state ?? to.searchParams.get("state") ?? "";
  return browser.fetch(`/console/oidc/callback?code=the-code&state=${encodeURIComponent(state)}`);
}
