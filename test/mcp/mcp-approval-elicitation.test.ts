import { describe, expect, it } from "vitest";
import { decide, lapse } from "../approvals/helpers.ts";
import { demoTicket, newRun, runStatus } from "../helpers.ts";
import { firstJson, mcpClient, type UrlElicitation } from "./helpers.ts";

const PAGE = /^http:\/\/localhost\/console\/runs\/([^/]+)\/approvals\/(apr_[0-9a-f]{32})$/;

function urgentCall() {
  const ticketId = `T-${crypto.randomUUID()}`;
  return {
    ticketId,
    call: { name: "create_ticket", arguments: { ticket_id: ticketId, priority: "urgent" } },
  };
}

/** The approval id a URL-mode elicitation's page names, checking the page is this run's. */
function approvalOf(url: string, run: string): string {
  const match = PAGE.exec(url);
  expect(match?.[1]).toBe(run);
  return match?.[2] ?? "";
}

/** A host whose person does `act` on the page, then answers the elicitation with `action`. */
function host(
  run: string,
  act: (approvalId: string, round: number) => Promise<void>,
  action: "accept" | "decline" | "cancel" = "accept",
) {
  const seen: { url: string; message: string }[] = [];
  const openUrl: UrlElicitation = async ({ url, message }) => {
    seen.push({ url, message });
    await act(approvalOf(url, run), seen.length);
    return { action };
  };
  return { seen, openUrl };
}

describe("MCP 2026-07-28: a call waiting on approval asks the host's person by URL", () => {
  it("hands the host the approval's console page, and completes the call once approved", async () => {
    const run = newRun("mcp");
    const { ticketId, call } = urgentCall();
    const person = host(run, async (id) => {
      // Nothing ran and nothing was charged while the person looks at the page.
      expect((await demoTicket(ticketId)).status).toBe(404);
      expect((await decide(run, id, "approve")).status).toBe(200);
    });
    const client = await mcpClient(run, { era: "auto", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticket: { ticket_id: ticketId } });
    expect(person.seen).toHaveLength(1);
    expect(person.seen[0]?.message).toContain("A person must approve this call");
    expect(person.seen[0]?.message).toContain("create_ticket (rule urgent_ticket)");
    expect((await demoTicket(ticketId)).status).toBe(200);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
    await client.close();
  });

  it("asks again while the approval still waits, the same page each time", async () => {
    const run = newRun("mcp");
    const { ticketId, call } = urgentCall();
    const person = host(run, async (id, round) => {
      if (round === 2) await decide(run, id, "approve");
    });
    const client = await mcpClient(run, { era: "auto", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.structuredContent).toMatchObject({ ticket: { ticket_id: ticketId } });
    expect(person.seen).toHaveLength(2);
    expect(person.seen[1]?.url).toBe(person.seen[0]?.url);
    await client.close();
  });

  it("answers a denial on the page as an error result, approval_denied", async () => {
    const run = newRun("mcp");
    const { ticketId, call } = urgentCall();
    const person = host(run, async (id) => {
      await decide(run, id, "deny", "not during the freeze");
    });
    const client = await mcpClient(run, { era: "auto", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({ reason: "approval_denied" });
    expect(JSON.stringify(result.content)).toContain("not during the freeze");
    expect((await demoTicket(ticketId)).status).toBe(404);
    await client.close();
  });

  it("answers an approval that lapsed as an error result, approval_expired", async () => {
    const run = newRun("mcp");
    const { call } = urgentCall();
    const person = host(run, (id) => lapse(run, id));
    const client = await mcpClient(run, { era: "auto", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({ reason: "approval_expired" });
    await client.close();
  });

  it("gives the pending result when the host's person declines to open the page", async () => {
    const run = newRun("mcp");
    const { call } = urgentCall();
    const person = host(run, async () => {}, "decline");
    const client = await mcpClient(run, { era: "auto", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ approval: { status: "pending" } });
    expect(person.seen).toHaveLength(1);
    await client.close();
  });

  it("gives the pending result to a client that did not declare URL elicitation", async () => {
    const run = newRun("mcp");
    const { call } = urgentCall();
    const client = await mcpClient(run, { era: "auto" });
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ approval: { status: "pending" } });
    await client.close();
  });

  it("keeps the pending result over 2025-11-25, even for a client that shows URLs", async () => {
    const run = newRun("mcp");
    const { call } = urgentCall();
    const person = host(run, async () => {});
    const client = await mcpClient(run, { era: "legacy", openUrl: person.openUrl });
    const result = await client.callTool(call);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ approval: { status: "pending" } });
    expect(person.seen).toHaveLength(0);
    await client.close();
  });
});
