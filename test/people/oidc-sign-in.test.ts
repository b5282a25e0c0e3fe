import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Operators } from "../../src/core/people.ts";
import {
  bindingsWith,
  CLIENT_ID,
  CLIENT_SECRET,
  fenceWith,
  PersonBrowser,
  StandInProvider,
  serveOutbound,
  signInThrough,
} from "./helpers.ts";

let idp: StandInProvider;

beforeEach(async () => {
  idp = await new StandInProvider().start();
  serveOutbound(idp);
});
afterEach(() => vi.restoreAllMocks());

function browser(
  operators: Partial<Operators> = { allow: ["ada@example.com"], tenant: "people-a" },
) {
  const bindings = bindingsWith({
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
  });
  return new PersonBrowser(fenceWith(operators), bindings);
}

describe("signing in through an OpenID provider", () => {
  it("an allowed person signs in with code + PKCE + state + nonce and operates for the policy's tenant", async () => {
    const b = browser();
    const signIn = await b.fetch("/console");
    expect(await signIn.text()).toContain("/console/oidc/start");
    const start = await b.fetch("/console/oidc/start?return=%2Fconsole%2Ftools");
    const to = new URL(start.headers.get("Location") ?? "");
    expect(to.origin + to.pathname).toBe(`${idp.issuer}/auth`);
    expect(to.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    expect(to.searchParams.get("redirect_uri")).toBe("http://localhost/console/oidc/callback");
    idp.nonce = to.searchParams.get("nonce") ?? "";
    const state = to.searchParams.get("state") ?? "";
    const back = await b.fetch(`/console/oidc/callback?code=c1&state=${state}`);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('content="0;url=/console/tools"');
    // The code was redeemed with the secret and the PKCE verifier of this attempt.
    const sent = idp.tokenRequest;
    expect(sent?.authorization).toBe(`Basic ${btoa(`${CLIENT_ID}:${CLIENT_SECRET}`)}`);
    const verifier = sent?.body.get("code_verifier") ?? "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
    const challenge = btoa(String.fromCharCode(...new Uint8Array(digest)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect(to.searchParams.get("code_challenge")).toBe(challenge);
    const runs = await b.fetch("/console/runs");
    expect(runs.status).toBe(200);
    const page = await runs.text();
    expect(page).toContain("people-a");
    expect(page).toContain("ada@example.com");
  });

  it("offers the provider to come back to the page the sign-in was asked for", async () => {
    const b = browser();
    const page = "/console/runs/r-1/approvals/apr_1";
    const signIn = await (await b.fetch(`/console?next=${encodeURIComponent(page)}`)).text();
    expect(signIn).toContain(`/console/oidc/start?return=${encodeURIComponent(page)}`);
    const unasked = await (await b.fetch("/console")).text();
    expect(unasked).toContain(`/console/oidc/start?return=${encodeURIComponent("/console/runs")}`);
  });

  it("a person named by the operator claim operates for the tenant their tenant claim names", async () => {
    const b = browser({ allow: [], claim: { name: "groups", value: "ops" }, tenant_claim: "org" });
    idp.person = { sub: "grace", groups: ["staff", "ops"], org: "people-b" };
    expect((await signInThrough(b, idp)).status).toBe(200);
    expect(await (await b.fetch("/console/runs")).text()).toContain("people-b");
  });

  it("refuses a person the policy does not make an operator, and starts no session", async () => {
    const b = browser();
    idp.person = { sub: "mallory", email: "mallory@example.com", email_verified: true };
    const back = await signInThrough(b, idp);
    expect(back.status).toBe(403);
    expect(await back.text()).toContain("not an operator");
    expect((await b.fetch("/console/runs")).status).toBe(303);
  });

  it("refuses an allowlisted email the provider did not verify", async () => {
    const b = browser();
    idp.person = { sub: "imposter", email: "ada@example.com", email_verified: false };
    expect((await signInThrough(b, idp)).status).toBe(403);
    expect((await b.fetch("/console/runs")).status).toBe(303);
  });

  const bent: [string, (c: Record<string, unknown>) => Record<string, unknown>, string][] = [
    [
      "another issuer",
      (c) => ({ ...c, iss: "https://other.example" }),
      "ERR_JWT_CLAIM_VALIDATION_FAILED",
    ],
    ["another audience", (c) => ({ ...c, aud: "someone-else" }), "ERR_JWT_CLAIM_VALIDATION_FAILED"],
    ["another nonce", (c) => ({ ...c, nonce: "not-this-one" }), "nonce"],
    [
      "an expired token",
      (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 60 }),
      "ERR_JWT_EXPIRED",
    ],
  ];
  for (const [what, bend, why] of bent) {
    it(`refuses an ID token with ${what}`, async () => {
      const b = browser();
      idp.idToken = bend;
      const back = await signInThrough(b, idp);
      expect(back.status).toBe(401);
      expect(await back.text()).toContain(why);
      expect((await b.fetch("/console/runs")).status).toBe(303);
    });
  }

  it("refuses an ID token signed with a key the provider does not publish", async () => {
    const b = browser();
    idp.foreignKey = true;
    const back = await signInThrough(b, idp);
    expect(back.status).toBe(401);
    expect((await b.fetch("/console/runs")).status).toBe(303);
  });

  it("refuses an answer whose state is not this browser's attempt", async () => {
    const b = browser();
    const back = await signInThrough(b, idp, { state: "forged-state" });
    expect(back.status).toBe(400);
    expect(idp.tokenRequest).toBeNull();
  });

  it("comes back to the page it started from, query and dots included", async () => {
    const b = browser();
    const from = "/console/connect?client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb";
    const back = await signInThrough(b, idp, { returnTo: from });
    expect(await back.text()).toContain(`content="0;url=${from.replaceAll("&", "&amp;")}"`);
  });

  it("comes back only to a console page", async () => {
    const b = browser();
    const back = await signInThrough(b, idp, { returnTo: "//evil.example/console/x" });
    expect(await back.text()).toContain('content="0;url=/console/runs"');
  });
});
