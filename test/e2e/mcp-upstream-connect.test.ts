/**
 * Over MCP, both eras, with the official client SDK against the e2e `wrangler dev`: a call to a
 * tool of the OAuth-protected notes server by a principal with no connection asks for the
 * connect page (2025-11-25: the -32042 URL elicitation error; 2026-07-28: an input-required
 * result with a URL elicitation), a person completes it in headless Chromium, and the client's
 * retry is applied with a token the notes server's authorization server issued for them.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browser, connectInBrowser, issueKey } from "./connections.ts";
import { notesSeen } from "./notes-upstream.ts";

const url = inject("fenceUrl");
const notesUrl = inject("notesUrl");
const issuer = inject("notesIssuer");
const state = inject("devState");
const WHOAMI = { name: "notes_whoami", arguments: {} };

let chrome: Awaited<ReturnType<typeof browser>>;
let page: Page;

beforeAll(async () => {
  chrome = await browser();
  page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
});

afterAll(async () => {
  await chrome?.close();
});

function transport(key: string, run: string) {
  return new StreamableHTTPClientTransport(new URL(`${url}/v1/runs/${run}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
}

describe("a call as the principal over MCP, without a connection", () => {
  it("2025-11-25: the SDK client gets -32042; the person connects in Chromium; the retry is applied", async () => {
    const { key } = await issueKey(state, "agent", "carol's agent");
    const client = new Client({ name: "e2e-connect-2025", version: "1.0.0" });
    await client.connect(transport(key, `e2e-mcp-connect-${crypto.randomUUID()}`));
    const refused = await client.callTool(WHOAMI).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (refused as UrlElicitationRequiredError).elicitations;
    expect(elicitation?.url.startsWith(`${url}/console/connections/connect?link=`)).toBe(true);
    await connectInBrowser(page, elicitation?.url ?? "", key, "carol", issuer);
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ subject: "carol" });
    expect((await notesSeen(notesUrl)).calls.at(-1)).toMatchObject({ sub: "carol" });
    await client.close();
  });

  it("2026-07-28: the host's person opens the URL elicitation in Chromium; the host's retry is applied", async () => {
    const { key } = await issueKey(state, "agent", "dan's agent");
    const client = new Client(
      { name: "e2e-connect-2026", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { url: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      if (request.params.mode !== "url") return { action: "decline" };
      asked.push(request.params.message);
      await connectInBrowser(page, request.params.url, key, "dan", issuer);
      return { action: "accept" };
    });
    await client.connect(transport(key, `e2e-mcp-connect-${crypto.randomUUID()}`));
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ subject: "dan" });
    expect(asked).toHaveLength(1);
    expect((await notesSeen(notesUrl)).calls.at(-1)).toMatchObject({ sub: "dan" });
    await client.close();
  });
});
