import { describe, expect, it } from "vitest";
import { dev, json, newRun, runStatus } from "../helpers.ts";
import { rawMcp } from "../mcp/helpers.ts";

// RFC 8259 §8.1: a networked JSON text must not begin with a byte order mark; a parser may
// ignore one. The fence reads JSON strictly and alike on both doors: a leading U+FEFF is a
// character before the JSON text, refused as malformed_payload, the call never made.
// A string body is sent as UTF-8, so U+FEFF goes out as the bytes EF BB BF.
const withBom = (text: string) => `\uFEFF${text}`;

const ticket = () => ({
  tool: "create_ticket",
  args: { ticket_id: `T-bom-${crypto.randomUUID().slice(0, 8)}` },
  idempotency_key: `k-bom-${crypto.randomUUID()}`,
});

describe("a body that begins with a byte order mark", () => {
  it("is refused on the REST door as malformed_payload, and audited", async () => {
    const run = newRun("bom");
    const res = await dev.propose(run, withBom(JSON.stringify(ticket())));
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ reason: "malformed_payload", decision: "block" });
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(0);
    expect(status.decisions).toEqual({ block: 1 });
  });

  it("is refused on the MCP door alike", async () => {
    const run = newRun("bom");
    const call = ticket();
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: call.tool, arguments: call.args },
    };
    const res = await rawMcp(run, {
      body: withBom(JSON.stringify(message)),
      headers: { "MCP-Protocol-Version": "2025-11-25" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: -32700, data: { reason: "malformed_payload" } },
    });
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(0);
    expect(status.decisions).toEqual({ block: 1 });
  });

  it("is refused as a run's limits too", async () => {
    const res = await dev.put(`/v1/runs/${newRun("bom")}`, withBom('{"max_mutations":1}'));
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ reason: "malformed_payload" });
  });

  it("is, in a text/plain body, space around the model's text, trimmed like any other", async () => {
    const res = await dev.propose(newRun("bom"), withBom(JSON.stringify(ticket())), {
      contentType: "text/plain",
    });
    expect(res.status).toBe(200);
  });

  it("is still accepted without the mark", async () => {
    expect((await dev.propose(newRun("bom"), ticket())).status).toBe(200);
  });
});
