import { exports } from "cloudflare:workers";
import { DEV_KEY } from "../helpers.ts";

/** The fence's origin in tests: loopback, where OAuth is served at the request's origin. */
export const ORIGIN = "http://localhost";
/** The connector URL. */
export const RESOURCE = `${ORIGIN}/mcp`;
/** A public client's redirect URI (a native app on this machine). */
export const REDIRECT = "http://127.0.0.1:33418/callback";

/** A browser on this machine: keeps every cookie, sends Origin on POSTs, never follows redirects. */
export class Browser {
  cookies = new Map<string, string>();

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    headers.set("CF-Connecting-IP", "127.0.0.1");
    const url = path.startsWith("http") ? path : `${ORIGIN}${path}`;
    const res = await exports.default.fetch(url, { ...init, headers, redirect: "manual" });
    for (const set of res.headers.getSetCookie()) {
      const [pair = ""] = set.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/Max-Age=0/i.test(set) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  post(path: string, form: Record<string, string | string[]>, origin = ORIGIN) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    return this.fetch(path, { method: "POST", body, headers: { Origin: origin } });
  }
}

/** A direct request to the worker from this machine (no cookies). */
export function send(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", "127.0.0.1");
  return exports.default.fetch(`${ORIGIN}${path}`, { ...init, headers });
}

/** Register a public client by DCR (RFC 7591); its client id. */
export async function register(redirect = REDIRECT): Promise<string> {
  const res = await send("/oauth/register", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      client_name: "Test Host",
      redirect_uris: [redirect],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
  if (res.status !== 201)
    throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** A PKCE pair (RFC 7636): the verifier and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** The authorization request's path and query. */
export function authorizePath(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
) {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-1",
    resource: RESOURCE,
    scope: "tools",
    ...extra,
  });
  return `/console/connect?${q}`;
}

/** The consent page's one-use handle. */
export function handleOf(page: string): string {
  const m = /name="handle" value="([^"]+)"/.exec(page);
  if (m?.[1] === undefined) throw new Error("no consent handle on the page");
  return m[1];
}

/** What the person grants on the consent page. */
export interface Consent {
  tools: string[];
  max_mutations: number;
  max_paid_calls: number;
  deadline_seconds: number;
}

export const DEFAULT_CONSENT: Consent = {
  tools: ["noop", "create_ticket", "get_ticket"],
  max_mutations: 1,
  max_paid_calls: 5,
  deadline_seconds: 600,
};

/** Sign in with `key` (the development key) and open the consent page; the browser, page and handle. */
export async function consentPage(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
  key = DEV_KEY,
) {
  const browser = new Browser();
  const path = authorizePath(clientId, challenge, extra);
  const signIn = await browser.post(path, { key });
  if (signIn.status !== 303) throw new Error(`sign-in answered ${signIn.status}`);
  const res = await browser.fetch(path);
  const page = await res.text();
  if (res.status !== 200) throw new Error(`consent page answered ${res.status}: ${page}`);
  return { browser, path, page, handle: handleOf(page) };
}

/** Consent with `consent`; the authorization code from the redirect. */
export async function authorize(
  clientId: string,
  challenge: string,
  consent: Consent = DEFAULT_CONSENT,
  extra: Record<string, string> = {},
  key = DEV_KEY,
): Promise<string> {
  const { browser, path, handle } = await consentPage(clientId, challenge, extra, key);
  const res = await browser.post(path, {
    handle,
    decision: "approve",
    tools: consent.tools,
    max_mutations: String(consent.max_mutations),
    max_paid_calls: String(consent.max_paid_calls),
    deadline_seconds: String(consent.deadline_seconds),
  });
  const location = res.headers.get("Location");
  if (res.status !== 302 || location === null) {
    throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  }
  const code = new URL(location).searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location}`);
  return code;
}

/** A token endpoint request. */
export function tokenRequest(form: Record<string, string>): Promise<Response> {
  return send("/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

/** Tokens as the token endpoint answers them. */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** Register, consent (signed in with `key`) and exchange the code: a connected host's client id and tokens. */
export async function connected(consent: Consent = DEFAULT_CONSENT, key = DEV_KEY) {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const code = await authorize(clientId, challenge, consent, {}, key);
  const res = await tokenRequest({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
  return { clientId, tokens: (await res.json()) as Tokens };
}

/** A JSON-RPC request to /mcp with a bearer token (2025-era, stateless). */
export function mcp(token: string | null, method: string, params: unknown = {}) {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Host: "localhost",
    "MCP-Protocol-Version": "2025-11-25",
  };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return send("/mcp", {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}
