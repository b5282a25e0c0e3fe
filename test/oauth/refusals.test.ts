import { describe, expect, it } from "vitest";
import { DEV_KEY } from "../helpers.ts";
import {
  authorize,
  authorizePath,
  Browser,
  connected,
  consentPage,
  DEFAULT_CONSENT,
  mcp,
  pkce,
  REDIRECT,
  register,
  tokenRequest,
} from "./helpers.ts";

describe("OAuth refuses", { timeout: 20_000 }, () => {
  it("a code_verifier that does not match the challenge", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const code = await authorize(clientId, challenge);
    const other = await pkce();
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: other.verifier,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("the plain PKCE method, before any consent", async () => {
    const clientId = await register();
    const browser = new Browser();
    await browser.post(authorizePath(clientId, "x".repeat(43)), { key: DEV_KEY });
    const res = await browser.fetch(
      authorizePath(clientId, "x".repeat(43), { code_challenge_method: "plain" }),
    );
    const location = res.headers.get("Location");
    const refused =
      res.status === 400 ||
      (location !== null && new URL(location).searchParams.get("error") === "invalid_request");
    expect(refused).toBe(true);
    expect(await res.text()).not.toContain('name="handle"');
  });

  it("a redirect URI the client did not register, without redirecting to it", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const browser = new Browser();
    const path = authorizePath(clientId, challenge, { redirect_uri: "https://evil.example/cb" });
    await browser.post(path, { key: DEV_KEY });
    const res = await browser.fetch(path);
    expect(res.status).toBe(400);
    expect(res.headers.get("Location")).toBeNull();
  });

  it("a client metadata document on a private or loopback address, before fetching it", async () => {
    const { challenge } = await pkce();
    for (const id of [
      "https://10.0.0.7/client.json",
      "https://127.0.0.1/client.json",
      "https://169.254.169.254/latest",
      "https://[::1]/client.json",
      "https://localhost/client.json",
    ]) {
      const browser = new Browser();
      const res = await browser.fetch(authorizePath(id, challenge));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("never fetched from a private or loopback address");
    }
  });

  it("a consent POST without the page's handle, and one from another origin", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const { browser, path, handle } = await consentPage(clientId, challenge);
    const form = {
      decision: "approve",
      tools: DEFAULT_CONSENT.tools,
      max_mutations: "1",
      max_paid_calls: "1",
      deadline_seconds: "60",
    };
    const forged = await browser.post(path, { ...form, handle: "forged" });
    expect(forged.status).toBe(400);
    expect(forged.headers.get("Location")).toBeNull();
    const crossSite = await browser.post(path, { ...form, handle }, "https://evil.example");
    expect(crossSite.status).toBe(403);
    // The real handle still works once, from the page's own origin.
    const real = await browser.post(path, { ...form, handle });
    expect(real.status).toBe(302);
    const again = await browser.post(path, { ...form, handle });
    expect(again.status).toBe(400);
  });

  it("limits looser than the tenant's, keeping the page open", async () => {
    const clientId = await register();
    const { challenge } = await pkce();
    const { browser, path, handle } = await consentPage(clientId, challenge);
    const res = await browser.post(path, {
      handle,
      decision: "approve",
      tools: ["noop"],
      max_mutations: "1000",
      max_paid_calls: "1",
      deadline_seconds: "60",
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("max_mutations");
  });

  it("a token request for another resource", async () => {
    const clientId = await register();
    const { verifier, challenge } = await pkce();
    const code = await authorize(clientId, challenge);
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: "http://localhost/elsewhere",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_target");
  });

  it("a reused refresh token, and revokes the grant with its access tokens", async () => {
    const { clientId, tokens } = await connected();
    const refresh = (token: string) =>
      tokenRequest({ grant_type: "refresh_token", refresh_token: token, client_id: clientId });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect((await mcp(next.access_token, "tools/list")).status).toBe(200);
    const reused = await refresh(tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant");
    // The whole grant is gone: its newest tokens too.
    expect((await mcp(next.access_token, "tools/list")).status).toBe(401);
    expect((await refresh(next.refresh_token)).status).toBe(400);
  });

  it("a token used at the run-scoped route, which takes API keys only", async () => {
    const { tokens } = await connected();
    const res = await mcp(tokens.access_token, "tools/list");
    expect(res.status).toBe(200);
    const { exports } = await import("cloudflare:workers");
    const scoped = await exports.default.fetch("http://localhost/v1/runs/r-1/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${tokens.access_token}`,
        "CF-Connecting-IP": "127.0.0.1",
        "Content-Type": "application/json",
      },
      body: "{}",
    });
    expect(scoped.status).toBe(401);
  });
});
