import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../../demo/contracts/index.ts";
import { buildApp } from "../../src/app.ts";
import { loadFence } from "../../src/core/policy.ts";
import { devRequest, get, json, newRun, propose, runStatus } from "../helpers.ts";
import { mcpClient } from "../mcp/helpers.ts";

// The reference server's tools need MCP_EVERYTHING_URL, which plain `npm run dev` (and these
// tests) do not set: they are not offered, and a call to one is not a retry.
// In the order of demo/contracts/index.ts.
const everything = [
  "everything_echo",
  "everything_get_sum",
  "everything_get_structured_content",
  "everything_get_resource_reference",
];
const missing = [
  ...everything.map((name) => ({ name, reason: "MCP_EVERYTHING_URL is not set" })),
  { name: "kb_search", reason: "MCP_KB_URL is not set" },
];
const echo = { tool: "everything_echo", args: { message: "hi" } };

describe("tools whose upstream is not configured", () => {
  it("are left out of GET /v1/tools, which names them and what they lack", async () => {
    for (const format of ["json", "openai", "anthropic"]) {
      const body = await json<{ tools: unknown[]; unavailable: unknown }>(
        await get(`/v1/tools?format=${format}`),
      );
      expect(JSON.stringify(body.tools)).not.toContain("everything_");
      expect(body.unavailable).toEqual(missing);
    }
  });

  it("are left out of tools/list, whose _meta names them", async () => {
    const client = await mcpClient(newRun("unconfigured"));
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).not.toContain("everything_echo");
    expect(listed._meta?.["io.toolfence/unavailable"]).toEqual(missing);
    await client.close();
  });

  it("refuse a call with 503 upstream_not_configured, escalate, nothing charged", async () => {
    const run = newRun("unconfigured");
    const res = await propose(run, echo);
    expect(res.status).toBe(503);
    expect(await json(res)).toMatchObject({
      reason: "upstream_not_configured",
      decision: "escalate",
      detail: expect.stringContaining("MCP_EVERYTHING_URL is not set"),
    });
    const status = await runStatus(run);
    expect(status.budget).toMatchObject({ paid_calls: { used: 0 }, mutations: { used: 0 } });
  });

  it("are offered once the variable is set", async () => {
    const urls = {
      MCP_EVERYTHING_URL: "http://127.0.0.1:9/mcp",
      MCP_KB_URL: "http://127.0.0.1:9/mcp",
    };
    const configured = { ...env, ...urls } as Env;
    const fence = loadFence(POLICY_SOURCE, CONTRACTS);
    if (!fence.ok) throw new Error(fence.error.join("; "));
    const worker = buildApp(fence.value);
    const ctx = createExecutionContext();
    const listed = await worker.fetch(devRequest("/v1/tools"), configured, ctx);
    await waitOnExecutionContext(ctx);
    const body = await json<{ tools: { name: string }[]; unavailable?: unknown }>(listed);
    expect(body.tools.map((t) => t.name)).toEqual(expect.arrayContaining(everything));
    expect(body.unavailable).toBeUndefined();
  });
});
