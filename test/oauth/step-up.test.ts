import { describe, expect, it } from "vitest";
import { authorize, mcp, pkce, REDIRECT, RESOURCE, register, tokenRequest } from "./helpers.ts";

/** A token for a grant of `tools offline_access`, asking the token endpoint for `scope`. */
async function tokenWithScope(scope: string): Promise<{ access_token: string; scope: string }> {
  const clientId = await register();
  const { verifier, challenge } = await pkce();
  const code = await authorize(clientId, challenge, undefined, { scope: "tools offline_access" });
  const res = await tokenRequest({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
    scope,
  });
  expect([res.status, res.status === 200 ? "" : await res.text()]).toEqual([200, ""]);
  return (await res.json()) as { access_token: string; scope: string };
}

describe("a token without the tools scope", { timeout: 20_000 }, () => {
  it("is answered 403 insufficient_scope naming the scope to step up to", async () => {
    const token = await tokenWithScope("offline_access");
    expect(token.scope.split(" ")).not.toContain("tools");
    const res = await mcp(token.access_token, "tools/list");
    expect(res.status).toBe(403);
    const challenge = res.headers.get("WWW-Authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(/scope="([^"]*)"/.exec(challenge)?.[1]?.split(" ")).toEqual(["tools"]);
  });

  it("is served once it carries the scope", async () => {
    const token = await tokenWithScope("tools offline_access");
    expect(token.scope.split(" ")).toContain("tools");
    const res = await mcp(token.access_token, "tools/list");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { tools?: unknown[] } };
    expect(body.result?.tools?.length).toBeGreaterThan(0);
  });
});
