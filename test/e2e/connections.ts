/**
 * What the e2e tests of upstream connections share: keys issued into the running `wrangler
 * dev`'s state by `npm run keys` as a user runs it, and a person connecting an upstream in
 * Chromium (the fence's connect page, the upstream authorization server's own login and
 * consent forms, the fence's callback).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "node_modules/.bin");

/** Run `npm run keys -- …` against the dev server's state; what it printed on stdout. */
function keys(args: string[], state: string): string {
  const argv = ["scripts/keys.ts", ...args, "--local", "--persist-to", state];
  return execFileSync(join(BIN, "node"), argv, {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${BIN}:${process.env.PATH ?? ""}`,
      WRANGLER_SEND_METRICS: "false",
    },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A key of tenant `default` issued as `npm run keys -- issue` does; the key and its id. */
export async function issueKey(state: string, role: "agent" | "operator", label: string) {
  const key = keys(["issue", "--tenant", "default", "--role", role, "--label", label], state)
    .trim()
    .split("\n")
    .at(-1);
  if (key === undefined || !key.startsWith("tf_")) throw new Error(`no key issued: ${key}`);
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)),
  );
  const id = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { key, id };
}

/** Revoke a key as `npm run keys -- revoke` does. */
export function revokeKey(state: string, id: string): void {
  keys(["revoke", "--id", id], state);
}

/** A headless Chromium with a profile of its own, as the project drives it. */
export async function browser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "toolfence-connect-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Open `connectUrl`, type `key` when the page asks for the key that made the call, go on, sign
 * in at the upstream's authorization server as `login` and allow, and come back connected.
 */
export async function connectInBrowser(
  page: Page,
  connectUrl: string,
  key: string,
  login: string,
  issuer: string,
): Promise<string> {
  // A fresh browser session: no console session, no sign-in at the authorization server.
  await page.context().clearCookies();
  await page.goto(connectUrl);
  if ((await page.locator('input[name="key"]').count()) > 0) {
    await page.fill('input[name="key"]', key);
  }
  await page.click("button.primary");
  await page.waitForURL((u) => u.origin === issuer);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any password");
  await page.click("button[type=submit]");
  // The server asks the person to allow the fence; then it sends them back.
  while (new URL(page.url()).origin === issuer) {
    await page.click("button[type=submit]");
    await page.waitForLoadState();
  }
  const text = (await page.textContent("main")) ?? "";
  expect(text).toContain("Connected");
  return text;
}
