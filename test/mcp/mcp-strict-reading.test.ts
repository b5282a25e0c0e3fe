import { describe, expect, it } from "vitest";
import { get, json, newRun, runStatus } from "../helpers.ts";
import { rawMcp, unparsedDigest } from "./helpers.ts";

/** One audit entry, as far as these tests read it. */
interface Entry {
  tool: string | null;
  form: string;
  decision: string;
  reason: string | null;
  content_type: string | null;
  payload: string;
  payload_truncated: boolean;
}

/** A raw 2025-11-25 request to a run's MCP endpoint; the body is sent byte for byte. */
function send(run: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
  return rawMcp(run, { body, headers: { "MCP-Protocol-Version": "2025-11-25", ...headers } });
}

/** A `tools/call` as a client would write it, `args` spliced in as raw JSON text. */
function toolsCall(tool: string, args: string, id = 1): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`;
}

async function auditOf(run: string): Promise<Entry[]> {
  return (await json<{ entries: Entry[] }>(await get(`/v1/runs/${run}/audit`))).entries;
}

const TICKET = () => `T-strict-${crypto.randomUUID().slice(0, 8)}`;

describe("the MCP door reads a body as strictly as the REST door", () => {
  it("refuses duplicate member names with 400, applies nothing, and audits the bytes sent", async () => {
    const run = newRun("mcp-strict");
    const body = toolsCall("create_ticket", `{"ticket_id":"${TICKET()}","title":"a","title":"b"}`);
    const res = await send(run, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32700,
        data: { status: 400, reason: "malformed_payload", decision: "block" },
      },
    });
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    expect(await auditOf(run)).toMatchObject([
      {
        form: "mcp",
        decision: "block",
        reason: "malformed_payload",
        payload: unparsedDigest(body),
      },
    ]);
  });

  it("refuses a __proto__ member instead of dropping it and applying the call", async () => {
    const run = newRun("mcp-strict");
    const body = toolsCall("create_ticket", `{"ticket_id":"${TICKET()}","__proto__":{"x":1}}`);
    const res = await send(run, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { data: { reason: "malformed_payload" } } });
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    expect(await auditOf(run)).toMatchObject([{ form: "mcp", reason: "malformed_payload" }]);
  });

  it("refuses a charset other than UTF-8 with 415 without reading the body, and audits it", async () => {
    const run = newRun("mcp-strict");
    const text = toolsCall("create_ticket", `{"ticket_id":"${TICKET()}"}`);
    // UTF-16LE, as the Content-Type says: the door must not read it as anything.
    const bytes = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) bytes[2 * i] = text.charCodeAt(i);
    const contentType = "application/json; charset=utf-16";
    const res = await send(run, bytes, { "Content-Type": contentType });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      error: { data: { status: 415, reason: "unsupported_media_type" } },
    });
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    expect(await auditOf(run)).toMatchObject([
      { form: "mcp", reason: "unsupported_media_type", content_type: contentType, payload: "" },
    ]);
  });

  it("refuses 20,000 nested arrays with 413 before any recursive work, and audits it", async () => {
    const run = newRun("mcp-strict");
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const body = toolsCall("noop", `{"note":${deep}}`);
    const res = await send(run, body);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: { code: -32700, data: { status: 413, reason: "payload_too_large" } },
    });
    const [entry, ...rest] = await auditOf(run);
    expect(rest).toEqual([]);
    // Kept as the keyed digest of the bytes received, as REST keeps a body it cannot read.
    expect(entry).toMatchObject({
      form: "mcp",
      reason: "payload_too_large",
      payload: unparsedDigest(body),
    });
  });

  it("keeps the bytes a tools/call was sent as, not a re-serialisation", async () => {
    const run = newRun("mcp-strict");
    // Spacing, member order and an escape JSON.stringify would all write differently.
    const body = `{ "id" : 9, "method":"tools/call", "jsonrpc":"2.0",\n  "params":{"arguments":{"note":"\\u0041 note"},"name":"noop"} }`;
    const res = await send(run, body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 9, result: { structuredContent: { ok: true } } });
    expect(await auditOf(run)).toMatchObject([
      { tool: "noop", form: "mcp", decision: "applied", payload: body, payload_truncated: false },
    ]);
  });

  it("keeps the bytes sent with a sensitive argument replaced by its digest", async () => {
    const run = newRun("mcp-strict");
    const email = "someone@example.com";
    const args = `{"ticket_id":"${TICKET()}","reporter_email":"${email}"}`;
    const body = toolsCall("create_ticket", args);
    expect((await send(run, body)).status).toBe(200);
    const [entry] = await auditOf(run);
    expect(entry?.payload).not.toContain(email);
    expect(entry?.payload).toMatch(/"reporter_email":"(hmac-sha256:[0-9a-f]{64}|redacted)"/);
    const kept = (entry?.payload ?? "").replace(/"reporter_email":"[^"]*"/, "");
    expect(kept).toBe(body.replace(`"reporter_email":"${email}"`, ""));
  });
});
