import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");
const KEY = "tf_dev_local_key";

/** Debian's Chromium: nothing is downloaded, there is no network for it. */
const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"];

let profile: string;
let browser: BrowserContext;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "toolfence-elicit-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(profile, { recursive: true, force: true });
});

/**
 * What a host that shows URL elicitations does: open the page for its person, who signs in to
 * the console and approves the call there; then tell the server the page was accepted.
 */
async function personApproves(pageUrl: string): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(pageUrl);
    // Not signed in yet: the console asks for a key, then comes back to this approval.
    await page.fill("#key", KEY);
    await page.click("button[type=submit]");
    await page.waitForURL(pageUrl);
    await page.click("button[value=approve]");
    await page.waitForURL(/done=approved/);
  } finally {
    await page.close();
  }
}

describe("the MCP SDK client (2026-07-28) and a person in Chromium", () => {
  it("gets an input-required URL, the person approves on that page, and the call completes", async () => {
    const run = `e2e-elicit-${crypto.randomUUID()}`;
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/runs/${run}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
    });
    const client = new Client(
      { name: "e2e-host", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { url: {} } } },
    );
    const opened: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      if (request.params.mode !== "url") return { action: "decline" };
      opened.push(request.params.url);
      await personApproves(request.params.url);
      return { action: "accept" };
    });
    await client.connect(transport);
    const ticket = `T-${crypto.randomUUID()}`;
    const result = await client.callTool({
      name: "create_ticket",
      arguments: { ticket_id: ticket, title: "Checkout is down", priority: "urgent" },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      ticket: { ticket_id: ticket, priority: "urgent" },
    });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(
      new RegExp(`^${url}/console/runs/${run}/approvals/apr_[0-9a-f]{32}$`),
    );
    const status = await fetch(`${url}/v1/runs/${run}`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(await status.json()).toMatchObject({ budget: { mutations: { used: 1 } } });
    await client.close();
  });
});
