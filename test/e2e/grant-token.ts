/**
 * An OAuth access token for a fence's `/mcp`, obtained as an MCP host obtains one: the SDK
 * client discovers the fence's authorization server and registers (RFC 7591), a person signs in
 * with the key and allows on the consent page in headless Chromium, and the host exchanges the
 * code (PKCE S256). For clients that cannot sign in themselves (the conformance suite).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";
import { HostAuth } from "./mcp-host.ts";

/** The host's loopback callback (RFC 8252): port 9, where nothing listens. */
const REDIRECT = "http://127.0.0.1:9/oauth/callback";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"];

/** Sign in with `key` at the consent page of `authorizationUrl` and allow every tool offered. */
async function consent(authorizationUrl: URL, key: string): Promise<URLSearchParams> {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-grant-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // Nothing listens on the callback: it is watched, and the code read from its URL.
    const callback = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
    // An authorization request the fence refuses is sent back to the callback at once.
    const refused = page.goto(authorizationUrl.toString()).then(
      () => null,
      () => callback.then((r) => new Error(`refused: ${r.url()}`)),
    );
    const error = await refused;
    if (error !== null) throw error;
    await page.fill("#key", key);
    await page.click("button[type=submit]");
    await page.waitForSelector('button[value="approve"]', { state: "attached" });
    await page.click('button[value="approve"]', { noWaitAfter: true });
    const redirected = new URL((await callback).url());
    if (!redirected.searchParams.has("code")) throw new Error(`no code: ${redirected}`);
    return redirected.searchParams;
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** An access token for `${fenceUrl}/mcp`, granted by the holder of `key` to a new host. */
export async function grantToken(fenceUrl: string, key: string): Promise<string> {
  const auth = new HostAuth("Conformance Suite", REDIRECT);
  const endpoint = new URL(`${fenceUrl}/mcp`);
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: auth });
  const client = new Client({ name: "conformance-grant", version: "1.0.0" });
  const first = await client.connect(transport).catch((e: unknown) => e);
  if (!(first instanceof UnauthorizedError) || auth.authorizationUrl === null) {
    throw new Error(`the fence's /mcp did not ask for authorization: ${String(first)}`);
  }
  // The callback's parameters: the code and RFC 9207's iss, checked against the issuer.
  await transport.finishAuth(await consent(auth.authorizationUrl, key));
  const token = auth.saved?.access_token;
  if (token === undefined) throw new Error("no access token was issued");
  return token;
}
