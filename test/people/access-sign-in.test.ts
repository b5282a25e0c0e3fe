import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ACCESS_AUD,
  bindingsWith,
  fenceWith,
  PersonBrowser,
  StandInAccess,
  serveOutbound,
} from "./helpers.ts";

let team: StandInAccess;

beforeEach(async () => {
  team = await new StandInAccess().start();
  serveOutbound({ answer: async (url) => team.answer(url) });
});
afterEach(() => vi.restoreAllMocks());

function browser() {
  const bindings = bindingsWith({ ACCESS_TEAM_DOMAIN: team.domain, ACCESS_AUD });
  return new PersonBrowser(fenceWith({ allow: ["ada@example.com"], tenant: "access-a" }), bindings);
}

const withToken = (token: string) => ({ headers: { "Cf-Access-Jwt-Assertion": token } });

describe("signing in behind Cloudflare Access", () => {
  it("a request Access signed for an operator opens the console; each request is checked on its own", async () => {
    const b = browser();
    const page = await b.fetch("/console/runs", withToken(await team.token("ada@example.com")));
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("access-a");
    expect(text).toContain("ada@example.com");
    expect((await b.fetch("/console/runs")).status).toBe(303);
  });

  it("refuses a person the policy does not make an operator", async () => {
    const b = browser();
    const page = await b.fetch("/console/runs", withToken(await team.token("eve@example.com")));
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("not an operator");
  });

  it("refuses a token for another Access application (audience)", async () => {
    const b = browser();
    const token = await team.token("ada@example.com", { aud: ["another-app"] });
    expect((await b.fetch("/console/runs", withToken(token))).status).toBe(303);
    expect((await b.fetch("/console/runs")).status).toBe(303);
  });

  it("refuses a token signed with a key that is not the team's", async () => {
    const b = browser();
    const token = await team.token("ada@example.com", {}, true);
    expect((await b.fetch("/console/runs", withToken(token))).status).toBe(303);
  });

  it("refuses an expired token and one from another team", async () => {
    const b = browser();
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = await team.token("ada@example.com", { exp: past });
    expect((await b.fetch("/console/runs", withToken(expired))).status).toBe(303);
    const other = await team.token("ada@example.com", { iss: "https://evil.cloudflareaccess.com" });
    expect((await b.fetch("/console/runs", withToken(other))).status).toBe(303);
  });
});
