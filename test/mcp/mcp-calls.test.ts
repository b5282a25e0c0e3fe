import { describe, expect, it } from "vitest";
import {
  demoTicket,
  json,
  newRun,
  post,
  propose,
  runStatus,
  seedTicket,
  ticketCall,
} from "../helpers.ts";
import { type Era, firstJson, mcpClient } from "./helpers.ts";

const KEY = "io.toolfence/idempotency-key";
const FENCE = "io.toolfence/fence";

async function commentsOn(ticket: string): Promise<number> {
  const body = await json<{ ticket: { comments: unknown[] } }>(await demoTicket(ticket));
  return body.ticket.comments.length;
}

describe.each<Era>(["legacy", "auto"])("MCP tools/call (%s era)", (era) => {
  it("applies a mutation once and replays its retry, with the decision under _meta", async () => {
    const run = newRun("mcp");
    const ticket = await seedTicket();
    const client = await mcpClient(run, { era });
    const call = {
      name: "add_comment",
      arguments: { ticket_id: ticket, body: "rolled back" },
      _meta: { [KEY]: "k-mcp-comment-1" },
    };
    const first = await client.callTool(call);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({
      ticket_id: ticket,
      comment: { body: "rolled back" },
    });
    expect(firstJson(first)).toEqual(first.structuredContent);
    expect(first._meta?.[FENCE]).toMatchObject({
      decision: "applied",
      budget: { mutations: { used: 1 } },
    });
    const again = await client.callTool(call);
    expect(again._meta?.[FENCE]).toMatchObject({ decision: "replayed", replayed: true });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await commentsOn(ticket)).toBe(1);
    await client.close();
  });

  it("replays an identical mutation sent without a key: the key is derived from the validated call", async () => {
    const run = newRun("mcp");
    const ticket = await seedTicket();
    const client = await mcpClient(run, { era });
    const call = { name: "add_comment", arguments: { body: "same", ticket_id: ticket } };
    await client.callTool(call);
    const again = await client.callTool({
      name: "add_comment",
      arguments: { ticket_id: ticket, body: "same" },
    });
    expect(again._meta?.[FENCE]).toMatchObject({ decision: "replayed" });
    expect(await commentsOn(ticket)).toBe(1);
    const other = await client.callTool({
      name: "add_comment",
      arguments: { ticket_id: ticket, body: "other" },
    });
    expect(other._meta?.[FENCE]).toMatchObject({ decision: "applied" });
    expect(await commentsOn(ticket)).toBe(2);
    await client.close();
  });

  it("answers a contract violation as an error result naming the field, with a hint", async () => {
    const client = await mcpClient(newRun("mcp"), { era });
    const result = await client.callTool({
      name: "fetch_service_logs",
      arguments: { service: "Auth Service", window: "1h" },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const problem = firstJson(result);
    expect(problem).toMatchObject({
      decision: "block",
      reason: "contract_violation",
      issues: [{ path: "service" }],
    });
    const hint = (result.content as { text: string }[])[1]?.text ?? "";
    expect(hint).toContain("service");
    await client.close();
  });

  it("shares the budget with REST calls of the same run", async () => {
    const run = newRun("mcp");
    const client = await mcpClient(run, { era });
    for (const i of [1, 2, 3]) {
      const rest = await propose(
        run,
        ticketCall(
          "create_ticket",
          { ticket_id: `T-${crypto.randomUUID()}` },
          `k-rest-budget-${i}`,
        ),
      );
      expect(rest.status).toBe(200);
    }
    const result = await client.callTool({
      name: "create_ticket",
      arguments: { ticket_id: `T-${crypto.randomUUID()}` },
    });
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({ reason: "budget_exhausted", decision: "block" });
    const status = await runStatus(run);
    expect(status.decisions).toMatchObject({ applied: 3, block: 1 });
    await client.close();
  });

  it("refuses every call of a halted run", async () => {
    const run = newRun("mcp");
    const client = await mcpClient(run, { era });
    expect((await client.callTool({ name: "noop", arguments: {} })).isError).toBeFalsy();
    expect((await post(`/v1/runs/${run}/halt?reason=test`)).status).toBe(200);
    const result = await client.callTool({ name: "noop", arguments: {} });
    expect(firstJson(result)).toMatchObject({ reason: "run_halted" });
    await client.close();
  });

  it("answers an unknown tool with JSON-RPC error -32602, and audits it", async () => {
    const run = newRun("mcp");
    const client = await mcpClient(run, { era });
    await expect(
      client.callTool({ name: "delete_everything", arguments: {} }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    expect((await runStatus(run)).decisions).toEqual({ block: 1 });
    await client.close();
  });

  it("names a long unknown tool in its error by its first 128 characters only", async () => {
    const client = await mcpClient(newRun("mcp"), { era });
    // 2026-07-28 clients repeat the name in the `Mcp-Name` header: it fits the 16 KiB of headers.
    const name = `probe_${"n".repeat(12_000)}`;
    const error = await client.callTool({ name, arguments: {} }).then(
      () => null,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toContain("Unknown tool: probe_nnn");
    expect(error?.message.length).toBeLessThan(300);
    await client.close();
  });
});

describe("MCP mutations at once", () => {
  it("applies 20 concurrent identical mutations once", async () => {
    const run = newRun("mcp");
    const ticket = await seedTicket();
    const client = await mcpClient(run);
    const call = { name: "add_comment", arguments: { ticket_id: ticket, body: "once" } };
    const results = await Promise.all(Array.from({ length: 20 }, () => client.callTool(call)));
    const decisions = results.map(
      (r) => (r._meta?.[FENCE] as { decision: string } | undefined)?.decision,
    );
    expect(decisions.filter((d) => d === "applied")).toHaveLength(1);
    expect(await commentsOn(ticket)).toBe(1);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
    await client.close();
  });
});
