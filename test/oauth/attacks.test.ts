/**
 * The OAuth edges an attacker tries: a spent refresh token sent as the library would still
 * read it, client documents on private addresses at every endpoint that fetches them, grants
 * outliving the key that approved them, what a token says, and registration floods.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/canonical.ts";
import { isPrivateHost } from "../../src/oauth/cimd-address.ts";
import { callerWith } from "../helpers.ts";
import {
  connected,
  DEFAULT_CONSENT,
  mcp,
  ORIGIN,
  REDIRECT,
  send,
  tokenRequest,
} from "./helpers.ts";

function form(type: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return send("/oauth/token", {
    method: "POST",
    headers: { "Content-Type": type, ...headers },
    body: new URLSearchParams(fields),
  });
}

describe("OAuth against an attacker", { timeout: 30_000 }, () => {
  it("revokes the grant when a spent refresh token comes back in any spelling the library reads", async () => {
    const { clientId, tokens } = await connected();
    const rotated = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string };
    // Upper case with parameters, and a body far past a few KiB: the library takes both.
    const reused = await form("Application/X-WWW-Form-Urlencoded ; charset=UTF-8", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      padding: "x".repeat(64 * 1024),
    });
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await mcp(next.access_token, "tools/list")).status).toBe(401);
  });

  it("refuses a client document on a private address at the token and revocation endpoint, unfetched", async () => {
    const fetched: string[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return real(input, init);
    }) as typeof fetch;
    try {
      const id = "https://127.0.0.1:9/doc.json";
      const asForm = await form("application/x-www-form-urlencoded", {
        grant_type: "refresh_token",
        refresh_token: "a:b:c",
        client_id: id,
      });
      const revocation = await form("application/x-www-form-urlencoded", {
        token: "a:b:c",
        client_id: " https://[::ffff:7f00:1]/doc.json",
      });
      const basic = await form(
        "application/x-www-form-urlencoded",
        { grant_type: "refresh_token", refresh_token: "a:b:c" },
        { Authorization: `Basic ${btoa(`${encodeURIComponent("https://localhost./d")}:s`)}` },
      );
      for (const res of [asForm, revocation, basic]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({
          error: "invalid_client",
          error_description: "Client not found",
        });
      }
      expect(fetched.filter((url) => !url.startsWith(ORIGIN))).toEqual([]);
    } finally {
      globalThis.fetch = real;
    }
  });

  it("reads every address and name no public client lives at as private", () => {
    for (const host of [
      "localhost.",
      "app.localhost.",
      "printer.local",
      "intranet",
      "[::ffff:7f00:1]",
      "[64:ff9b::a00:1]",
      "[fec0::1]",
      "[ff02::1]",
      "[2002:7f00:1::]",
      "192.0.0.8",
      "198.18.0.1",
      "198.19.255.255",
      "224.0.0.1",
      "255.255.255.255",
    ]) {
      expect(isPrivateHost(host), host).toBe(true);
    }
    for (const host of ["client.example.com", "93.184.216.34", "[2606:4700::6810:84e5]"]) {
      expect(isPrivateHost(host), host).toBe(false);
    }
  });

  it("ends the grants an operator key approved when the key is revoked", async () => {
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const { clientId, tokens } = await connected(DEFAULT_CONSENT, operator.key ?? "");
    expect((await mcp(tokens.access_token, "tools/list")).status).toBe(200);
    await env.API_KEYS.delete(`key:${await sha256Hex(operator.key ?? "")}`);
    expect((await mcp(tokens.access_token, "tools/list")).status).toBe(401);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("refuses a refresh once the approving key is revoked, before any use at /mcp", async () => {
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const { clientId, tokens } = await connected(DEFAULT_CONSENT, operator.key ?? "");
    await env.API_KEYS.delete(`key:${await sha256Hex(operator.key ?? "")}`);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect((await mcp(tokens.access_token, "tools/list")).status).toBe(401);
  });

  it("puts neither the tenant nor the approving key's digest in a token", async () => {
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const digest = await sha256Hex(operator.key ?? "");
    const { tokens } = await connected(DEFAULT_CONSENT, operator.key ?? "");
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      expect(token).not.toContain(digest);
      expect(token).not.toContain("default");
    }
  });
});

describe("dynamic client registration", { timeout: 30_000 }, () => {
  const registration = (body: Record<string, unknown>, address = "127.0.0.1") =>
    exports.default.fetch(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": address },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        ...body,
      }),
    });

  it("bounds the client name, the redirect URIs and their length", async () => {
    const refused = [
      { client_name: "n".repeat(101) },
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${4000 + i}/cb`) },
      { redirect_uris: [`http://127.0.0.1:4000/${"p".repeat(2100)}`] },
    ];
    for (const body of refused) {
      const res = await registration(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_client_metadata");
    }
    expect((await registration({ client_name: "n".repeat(100) })).status).toBe(201);
  });

  it("keeps a registration no token request used for a day only", async () => {
    const res = await registration({ client_name: "Unused" });
    const { client_id } = (await res.json()) as { client_id: string };
    const listed = await env.OAUTH_KV.list({ prefix: `client:${client_id}` });
    const expiration = listed.keys[0]?.expiration ?? Number.POSITIVE_INFINITY;
    expect(expiration - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600 + 5);
  });

  it("limits registrations per client address", async () => {
    const answers: number[] = [];
    for (let i = 0; i < 205; i++) answers.push((await registration({}, "127.0.0.99")).status);
    expect(answers.slice(0, 10).every((status) => status === 201)).toBe(true);
    expect(answers.at(-1)).toBe(429);
    // Another address is not held up by the flood.
    expect((await registration({}, "127.0.0.98")).status).toBe(201);
  });
});
