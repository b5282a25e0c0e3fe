import { describe, expect, it } from "vitest";
import { callerWith, get, json, newRun, runStatus } from "../helpers.ts";
import { rawMcp, unparsedDigest } from "./helpers.ts";

// vitest.config.ts sets CALL_LIMITER to 20 requests per 60 s for each key.
const LIMIT = 20;

/** A raw request to a run's MCP endpoint; no MCP-Protocol-Version unless `version` names one. */
function send(run: string, body: string, opts: { version?: string; key?: string } = {}) {
  const headers: Record<string, string> =
    opts.version === undefined ? {} : { "MCP-Protocol-Version": opts.version };
  return rawMcp(run, { body, headers, ...(opts.key === undefined ? {} : { key: opts.key }) });
}

function noopCall(id: number, note: string): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"noop","arguments":{"note":"${note}"}}}`;
}

describe("JSON-RPC batches at the MCP door", () => {
  it("refuses a batch on the revisions that removed them, audited, nothing run", async () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const run = newRun("mcp-batch");
      const body = `[${noopCall(1, "a")},${noopCall(2, "b")}]`;
      const res = await send(run, body, { version });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, data: { status: 400, reason: "malformed_payload" } },
      });
      expect((await runStatus(run)).decisions).toEqual({ block: 1 });
      const { entries } = await json<{ entries: { payload: string; tool: string | null }[] }>(
        await get(`/v1/runs/${run}/audit`),
      );
      expect(entries).toMatchObject([{ tool: null, payload: unparsedDigest(body) }]);
    }
  });

  it("runs a 2025-03-26 batch, auditing each call with the bytes of its own element", async () => {
    const run = newRun("mcp-batch");
    const first = noopCall(1, "first");
    const second = noopCall(2, "second");
    const res = await send(run, `[ ${first} ,\n${second}]`);
    expect(res.status).toBe(200);
    const answers = await json<{ id: number; result: { structuredContent: unknown } }[]>(res);
    expect(answers.map((a) => [a.id, a.result.structuredContent])).toEqual([
      [1, { ok: true }],
      [2, { ok: true }],
    ]);
    const { entries } = await json<{ entries: { payload: string }[] }>(
      await get(`/v1/runs/${run}/audit`),
    );
    expect(entries.map((e) => e.payload).sort()).toEqual([first, second].sort());
  });

  it("counts each message of a batch against the key's rate limit", async () => {
    const agent = await callerWith();
    const pings = Array.from({ length: 2 * LIMIT + 1 }, (_, i) =>
      JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }),
    );
    // Windows follow the wall clock; 2 × LIMIT + 1 messages overflow one even across a rollover.
    const res = await send(newRun("mcp-batch"), `[${pings.join(",")}]`, { key: agent.key ?? "" });
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(await json(res)).toMatchObject({ reason: "rate_limited", decision: "retry" });
  });
});
