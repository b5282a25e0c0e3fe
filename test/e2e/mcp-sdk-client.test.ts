import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");
const FENCE = "io.toolfence/fence";

async function connect(run: string, mode: "legacy" | "auto"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/runs/${run}/mcp`), {
    requestInit: { headers: { Authorization: "Bearer tf_dev_local_key" } },
  });
  const client = new Client({ name: "e2e", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return client;
}

describe.each(["legacy", "auto"] as const)(
  "the MCP SDK client (%s negotiation) against wrangler dev",
  (mode) => {
    it("lists the tools, applies a mutation once, and gets a block it can re-plan from", async () => {
      const run = `e2e-mcp-${mode}-${crypto.randomUUID()}`;
      const client = await connect(run, mode);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("create_ticket");
      const ticket = `T-${crypto.randomUUID()}`;
      const create = { name: "create_ticket", arguments: { ticket_id: ticket, title: "From MCP" } };
      const first = await client.callTool(create);
      expect(first.structuredContent).toMatchObject({
        ticket: { ticket_id: ticket, title: "From MCP" },
      });
      const again = await client.callTool(create);
      expect(again._meta?.[FENCE]).toMatchObject({ decision: "replayed" });
      const bad = await client.callTool({
        name: "create_ticket",
        arguments: { ticket_id: ticket, priority: "URGENT" },
      });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0]?.text).toContain(
        '"reason":"contract_violation"',
      );
      const status = await fetch(`${url}/v1/runs/${run}`, {
        headers: { Authorization: "Bearer tf_dev_local_key" },
      });
      expect(await status.json()).toMatchObject({ budget: { mutations: { used: 1 } } });
      await client.close();
    });
  },
);
