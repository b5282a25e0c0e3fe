import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/core/canonical.ts";
import { get, json, newRun, seedTicket } from "../helpers.ts";
import { firstJson, mcpClient, rawMcp } from "./helpers.ts";

const KEY = "io.toolfence/idempotency-key";
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

describe("the MCP endpoint over HTTP", () => {
  it("answers GET and DELETE with 405: there is no session to open or end", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await rawMcp(newRun("mcp"), { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe("POST");
    }
  });

  it("refuses a request without a key with 401 and a Bearer challenge", async () => {
    const res = await rawMcp(newRun("mcp"), { body: INIT, headers: { Authorization: "" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="toolfence"');
  });

  it("refuses a browser request from another origin (DNS rebinding)", async () => {
    const run = newRun("mcp");
    const foreign = await rawMcp(run, { body: INIT, headers: { Origin: "http://evil.example" } });
    expect(foreign.status).toBe(403);
    const own = await rawMcp(run, { body: INIT, headers: { Origin: "http://localhost" } });
    expect(own.status).toBe(200);
  });

  it("answers malformed JSON-RPC with the protocol's errors and a non-JSON body with 415", async () => {
    const run = newRun("mcp");
    const broken = await rawMcp(run, { body: "{not json" });
    expect(await broken.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const notRpc = await rawMcp(run, { body: JSON.stringify({ hello: "world" }) });
    expect(await notRpc.json()).toMatchObject({ error: { code: -32600 } });
    const text = await rawMcp(run, { body: INIT, headers: { "Content-Type": "text/plain" } });
    expect(text.status).toBe(415);
  });
});

describe("MCP refusals the model re-plans from", () => {
  it("refuses a key sent again with other arguments, naming the reason; both audited as form mcp", async () => {
    const run = newRun("mcp");
    const client = await mcpClient(run);
    const ticket = await seedTicket();
    const call = (body: string) => ({
      name: "add_comment",
      arguments: { ticket_id: ticket, body },
      _meta: { [KEY]: "k-mcp-reused-1" },
    });
    expect((await client.callTool(call("first"))).isError).toBeFalsy();
    const reused = await client.callTool(call("second"));
    expect(reused.isError).toBe(true);
    expect(firstJson(reused)).toMatchObject({ reason: "idempotency_key_reused" });
    const audit = await json<{
      entries: { seq: number; of: number | null; form: string; decision: string }[];
    }>(await get(`/v1/runs/${run}/audit`));
    const forms = audit.entries.map((e) => [e.form, e.decision, e.of]);
    expect(forms).toEqual([
      ["mcp", "pending", null],
      ["mcp", "applied", 1],
      ["mcp", "block", null],
    ]);
    await client.close();
  });

  it("tells the model when to retry a call whose key is still running", async () => {
    const run = newRun("mcp");
    const ticket = await seedTicket();
    const args = { ticket_id: ticket, body: "in flight" };
    // A worker holds the key and has not settled yet.
    const admitted = await env.RUN_LEDGER.getByName(`default/${run}`).propose(
      { tenant: "default", runId: run },
      {
        callId: "running-call",
        tool: "add_comment",
        form: "mcp",
        effect: "mutate",
        paid: true,
        key: "k-mcp-running-1",
        fingerprint: await fingerprint("add_comment", args),
        args: JSON.stringify(args),
        target: null,
        leaseMs: 60_000,
        outcome: null,
        evidence: { contentType: "application/json", payload: "{}", truncated: false },
      },
    );
    expect(admitted.kind).toBe("admit");
    const client = await mcpClient(run);
    const result = await client.callTool({
      name: "add_comment",
      arguments: args,
      _meta: { [KEY]: "k-mcp-running-1" },
    });
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({
      decision: "retry",
      reason: "idempotency_key_in_use",
    });
    const hint = (result.content as { text: string }[])[1]?.text ?? "";
    expect(hint).toMatch(/^Retry the same call in a few seconds/);
    await client.close();
  });
});
