import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { HostAuth } from "./mcp-host.ts";
import { PERSON } from "./oidc-idp.ts";

const url = inject("fenceUrl");
const issuer = inject("idpIssuer");
const KEY = "tf_dev_local_key";
/** The host's loopback callback (RFC 8252): port 9, where nothing listens. */
const REDIRECT = "http://127.0.0.1:9/oauth/person-callback";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"];
/** The login typed into the provider's form: the person's subject there. */
const LOGIN = "ada";

let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "toolfence-person-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(profile, { recursive: true, force: true });
});

/**
 * On the consent page, sign in through the OpenID provider (its own login and consent
 * forms), come back, grant `noop` only, allow; the host's callback parameters.
 */
async function consentAsPerson(authorizationUrl: URL) {
  const page = browser.pages()[0] ?? (await browser.newPage());
  const callback = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
  await page.goto(authorizationUrl.toString());
  await page.click("text=Sign in with your identity provider");
  await page.waitForURL((u) => u.origin === issuer);
  await page.fill('input[name="login"]', LOGIN);
  await page.fill('input[name="password"]', "any password");
  await page.click("button[type=submit]");
  // The provider asks the person to allow the fence once; then it sends them back.
  while (new URL(page.url()).origin === issuer) {
    await page.click("button[type=submit]");
    await page.waitForLoadState();
  }
  await page.waitForSelector('input[name="handle"]', { state: "attached" });
  expect(await page.content()).toContain(PERSON.email);
  for (const box of await page.locator('input[name="tools"]').all()) {
    if ((await box.getAttribute("value")) !== "noop") await box.uncheck();
  }
  await page.click('button[value="approve"]', { noWaitAfter: true });
  const redirected = new URL((await callback).url());
  if (!redirected.searchParams.has("code")) throw new Error(`no code: ${redirected}`);
  return redirected.searchParams;
}

describe("a person signs in through the company's OpenID provider to connect an MCP host", () => {
  it("consents after signing in at a real oidc-provider; the grant's calls name them, the client and the grant", async () => {
    const auth = new HostAuth("Person's Host", REDIRECT);
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      authProvider: auth,
    });
    const first = new Client({ name: "e2e-person-host", version: "1.0.0" });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const params = await consentAsPerson(auth.authorizationUrl as URL);
    await transport.finishAuth(params);

    const client = new Client({ name: "e2e-person-host", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: auth }),
    );
    const result = await client.callTool({ name: "noop", arguments: {} });
    expect(result.isError).toBeFalsy();

    // The grant, as the console lists it to the person who made it.
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${url}/console/grants`);
    const section = page.locator("section", { hasText: "Person's Host" });
    const grant = ((await section.getAttribute("id")) ?? "").replace(/^grant-/, "");
    expect(grant).toMatch(/^[0-9a-f]{24}$/);
    expect(await section.textContent()).toContain(PERSON.email);

    const res = await fetch(`${url}/v1/runs/oauth.${grant}.0/audit`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: Record<string, unknown>[] };
    const calls = entries.filter((e) => e.tool === "noop");
    expect(calls.length).toBeGreaterThan(0);
    for (const entry of calls) {
      expect(entry.principal).toEqual({
        kind: "person",
        iss: issuer,
        sub: LOGIN,
        email: PERSON.email,
        email_verified: true,
        name: PERSON.name,
        client_id: auth.info?.client_id,
        grant_id: grant,
      });
    }
    const verified = await fetch(`${url}/v1/runs/oauth.${grant}.0/audit/verify`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(await verified.json()).toMatchObject({ ok: true });
  });
});
