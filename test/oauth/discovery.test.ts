import { describe, expect, it } from "vitest";
import { mcp, ORIGIN, RESOURCE, send } from "./helpers.ts";

describe("an MCP host discovers how to authenticate", () => {
  it("a request without a token is answered 401 pointing at the resource metadata", async () => {
    const res = await mcp(null, "tools/list");
    expect(res.status).toBe(401);
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(
      `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("an unknown token is answered 401 invalid_token", async () => {
    const res = await mcp("someone:else:token", "tools/list");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("the protected-resource metadata names the resource and the authorization server", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const res = await send(path);
      expect(res.status).toBe(200);
      const meta = (await res.json()) as Record<string, unknown>;
      expect(meta.resource).toBe(RESOURCE);
      expect(meta.authorization_servers).toEqual([ORIGIN]);
    }
  });

  it("the authorization server metadata offers PKCE S256 only, refresh, CIMD, DCR and revocation", async () => {
    const res = await send("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(ORIGIN);
    expect(meta.authorization_endpoint).toBe(`${ORIGIN}/console/connect`);
    expect(meta.token_endpoint).toBe(`${ORIGIN}/oauth/token`);
    expect(meta.registration_endpoint).toBe(`${ORIGIN}/oauth/register`);
    expect(meta.revocation_endpoint).toBe(`${ORIGIN}/oauth/token`);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.grant_types_supported).toContain("refresh_token");
    expect(meta.client_id_metadata_document_supported).toBe(true);
  });

  it("a deployed fence without PUBLIC_URL serves no OAuth: /mcp is 401, the metadata 404", async () => {
    const deployed = { "CF-Ray": "8f00000000000000-LHR", "CF-Connecting-IP": "203.0.113.9" };
    const res = await fetchDeployed("https://fence.example.com/mcp", deployed);
    expect(res.status).toBe(401);
    const meta = await fetchDeployed(
      "https://fence.example.com/.well-known/oauth-protected-resource",
      deployed,
    );
    expect(meta.status).toBe(404);
  });
});

async function fetchDeployed(url: string, headers: Record<string, string>) {
  const { exports } = await import("cloudflare:workers");
  return exports.default.fetch(url, { method: "POST", headers });
}
