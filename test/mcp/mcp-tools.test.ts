import { describe, expect, it } from "vitest";
import { callerWith, newRun } from "../helpers.ts";
import { type Era, mcpClient } from "./helpers.ts";

describe.each<Era>(["legacy", "auto"])("MCP tools/list (%s era)", (era) => {
  it("lists the caller's tools with their schemas and annotations", async () => {
    const client = await mcpClient(newRun("mcp"), { era });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add_comment",
      "create_ticket",
      "fetch_service_logs",
      "get_ticket",
      "noop",
      "notes_add_note",
      "notes_whoami",
      "ops_restart_service",
      "ops_service_status",
    ]);
    const create = tools.find((t) => t.name === "create_ticket");
    expect(create?.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["ticket_id"],
    });
    expect(create?.outputSchema).toMatchObject({ type: "object" });
    expect(create?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    const comment = tools.find((t) => t.name === "add_comment");
    expect(comment?.annotations?.destructiveHint).toBe(false);
    const noop = tools.find((t) => t.name === "noop");
    expect(noop?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    await client.close();
  });

  it("lists only a key's own subset", async () => {
    const agent = await callerWith({ tools: ["noop", "get_ticket"] });
    const client = await mcpClient(newRun("mcp"), { era, key: agent.key ?? "" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_ticket", "noop"]);
    await client.close();
  });
});
