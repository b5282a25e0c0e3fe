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
import { HostAuth, type Stored } from "./mcp-host.ts";

const url = inject("fenceUrl");
const KEY = "tf_dev_local_key";
/** The host's loopback callback (RFC 8252): port 9, where nothing listens. */
const REDIRECT = "http://127.0.0.1:9/oauth/callback";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"];

let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "toolfence-oauth-"));
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

/** Sign in, narrow the tools to `tools`, grant one mutation, allow; the callback's parameters. */
async function consentInChromium(authorizationUrl: URL, tools: string[]) {
  const page = browser.pages()[0] ?? (await browser.newPage());
  // Playwright routes only a redirect's first URL, so the callback is watched, not routed;
  // nothing listens on it, and the host reads the code from the URL as a real one would.
  const callback = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
  await page.goto(authorizationUrl.toString());
  await page.fill("#key", KEY);
  await page.click("button[type=submit]");
  await page.waitForSelector('input[name="handle"]', { state: "attached" });
  for (const box of await page.locator('input[name="tools"]').all()) {
    const value = (await box.getAttribute("value")) ?? "";
    if (!tools.includes(value)) await box.uncheck();
  }
  await page.fill('input[name="max_mutations"]', "1");
  await page.click('button[value="approve"]', { noWaitAfter: true });
  const redirected = new URL((await callback).url());
  if (!redirected.searchParams.has("code")) throw new Error(`no code: ${redirected}`);
  return redirected.searchParams;
}

function transportFor(auth: HostAuth) {
  return new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: auth });
}

describe("an MCP host connects by OAuth, in Chromium", () => {
  const auth = new HostAuth("E2E Host", REDIRECT);
  let client: Client;

  it("discovers, registers, consents with PKCE and lists only the granted tools", async () => {
    const first = new Client({ name: "e2e-host", version: "1.0.0" });
    const transport = transportFor(auth);
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(auth.info?.client_id).toBeDefined();
    expect(auth.authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    const callback = await consentInChromium(auth.authorizationUrl as URL, [
      "noop",
      "create_ticket",
    ]);
    // The code and RFC 9207's iss, checked against the issuer the host discovered.
    await transport.finishAuth(callback);
    expect(auth.saved?.refresh_token).toBeDefined();
    client = new Client({ name: "e2e-host", version: "1.0.0" });
    await client.connect(transportFor(auth));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["create_ticket", "noop"]);
  });

  it("makes an applied call and is refused past the granted budget", async () => {
    const ticket = () => ({
      name: "create_ticket",
      arguments: { ticket_id: `T-${crypto.randomUUID().slice(0, 8)}`, priority: "low" },
    });
    const applied = await client.callTool(ticket());
    expect(applied.isError).toBeFalsy();
    const refused = await client.callTool(ticket());
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("budget_exhausted");
  });

  it("refreshes, then is refused after the operator revokes the grant", async () => {
    const res = await fetch(`${url}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: auth.saved?.refresh_token ?? "",
        client_id: auth.info?.client_id ?? "",
      }),
    });
    expect(res.status).toBe(200);
    auth.saveTokens((await res.json()) as Stored);
    const refreshed = new Client({ name: "e2e-host", version: "1.0.0" });
    await refreshed.connect(transportFor(auth));
    expect((await refreshed.listTools()).tools.length).toBe(2);

    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${url}/console/grants`);
    await page.locator("section", { hasText: "E2E Host" }).locator("button.danger").click();
    await page.waitForSelector("text=is revoked");
    const after = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${auth.saved?.access_token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(401);
    expect(after.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });
});
