import { describe, expect, it } from "vitest";
import { FENCE_META } from "../../src/mcp/results.ts";
import { newRun } from "../helpers.ts";
import { type Era, mcpClient } from "./helpers.ts";

// The demo's MCP server (behind the DEMO binding) answers `service_status` with one text block
// holding the status as JSON, and the same status as structured content.
describe.each<Era>(["legacy", "auto"])("an MCP upstream's result over MCP (%s era)", (era) => {
  // One service per era, so neither answer comes from the other's cache entry.
  const service = era === "legacy" ? "relay-legacy" : "relay-auto";
  it("reaches the client as the upstream sent it: its blocks and its structured content", async () => {
    const client = await mcpClient(newRun("relay"), { era });
    const result = await client.callTool({
      name: "ops_service_status",
      arguments: { service },
    });
    const status = result.structuredContent as Record<string, unknown>;
    expect(status).toMatchObject({ service });
    expect(Object.keys(status).sort()).toEqual(["healthy", "replicas", "service", "version"]);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(status) }]);
    expect(result.isError).toBeUndefined();
    expect(result._meta?.[FENCE_META]).toMatchObject({ decision: "applied" });
    await client.close();
  });

  it("is listed with the upstream's structured output as its output schema", async () => {
    const client = await mcpClient(newRun("relay"), { era });
    const { tools } = await client.listTools();
    const status = tools.find((t) => t.name === "ops_service_status");
    expect(status?.outputSchema).toMatchObject({
      type: "object",
      required: ["service", "healthy", "replicas", "version"],
    });
    expect(status?.outputSchema?.properties).not.toHaveProperty("content");
    await client.close();
  });
});
