import { UrlElicitationRequiredError } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newRun } from "../helpers.ts";
import { firstJson, mcpClient, type UrlElicitation } from "../mcp/helpers.ts";
import { Browser } from "../oauth/helpers.ts";
import { connect, principal } from "./helpers.ts";
import { StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

const CONNECT_PAGE = /^http:\/\/localhost\/console\/connections\/connect\?link=[A-Za-z0-9_-]+$/;
const WHOAMI = { name: "notes_whoami", arguments: {} };

describe("MCP 2025-11-25: a call without a connection", () => {
  it("is the -32042 URL elicitation error; once the person connects, the client's retry is applied", async () => {
    const standIn = new StandIn().install();
    const who = await principal("agent");
    const client = await mcpClient(newRun("mcp"), { key: who.key, address: "127.0.0.1" });
    const refused = await client.callTool(WHOAMI).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (refused as UrlElicitationRequiredError).elicitations;
    expect(elicitation?.mode).toBe("url");
    expect(elicitation?.elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(elicitation?.url).toMatch(CONNECT_PAGE);
    const { done } = await connect(standIn, elicitation?.url ?? "", who.key, "ada");
    expect(done.status).toBe(200);
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ subject: "ada" });
    await client.close();
  });
});

describe("MCP 2026-07-28: a call without a connection", () => {
  it("asks the host's person by URL, and the host's retry is applied once they connected", async () => {
    const standIn = new StandIn().install();
    const who = await principal("agent");
    const seen: string[] = [];
    const openUrl: UrlElicitation = async ({ url, message }) => {
      seen.push(message);
      expect(url).toMatch(CONNECT_PAGE);
      const { done } = await connect(standIn, url, who.key, "grace", new Browser());
      expect(done.status).toBe(200);
      return { action: "accept" };
    };
    const client = await mcpClient(newRun("mcp"), {
      era: "auto",
      key: who.key,
      address: "127.0.0.1",
      openUrl,
    });
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ subject: "grace" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("notes_whoami is called as you");
    await client.close();
  });

  it("is an isError result naming connect_url for a client without URL elicitation", async () => {
    new StandIn().install();
    const who = await principal("agent");
    const client = await mcpClient(newRun("mcp"), {
      era: "auto",
      key: who.key,
      address: "127.0.0.1",
    });
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBe(true);
    const problem = firstJson(result);
    expect(problem).toMatchObject({
      reason: "upstream_authorization_required",
      decision: "escalate",
    });
    expect(String(problem.connect_url)).toMatch(CONNECT_PAGE);
    const hint = (result.content as { text: string }[])[1]?.text ?? "";
    expect(hint).toContain("open connect_url");
    await client.close();
  });

  it("gives the ordinary refusal when the host's person declines the page", async () => {
    new StandIn().install();
    const who = await principal("agent");
    const openUrl: UrlElicitation = async () => ({ action: "decline" });
    const client = await mcpClient(newRun("mcp"), {
      era: "auto",
      key: who.key,
      address: "127.0.0.1",
      openUrl,
    });
    const result = await client.callTool(WHOAMI);
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({ reason: "upstream_authorization_required" });
    await client.close();
  });
});
