import { describe, expect, it } from "vitest";
import { execute } from "../../src/execute/execute.ts";
import { type Answer, behind, standInContract as contract, initialized } from "./stand-in.ts";

// An MCP server behind a service binding whose tool result is as large as a test asks.
const answering = (text: string): Answer => initialized({ content: [{ type: "text", text }] });

/** The same answer as an SSE stream, which the SDK reads event by event. */
const streaming =
  (text: string): Answer =>
  (m) => {
    if (m.method === "initialize") return answering(text)(m);
    const event = JSON.stringify({
      jsonrpc: "2.0",
      id: m.id,
      result: { content: [{ type: "text", text }] },
    });
    return new Response(`event: message\ndata: ${event}\n\n`, {
      headers: { "Content-Type": "text/event-stream" },
    });
  };

function run(bindings: Env, answerLimit?: number) {
  return execute(
    contract,
    { service: "checkout" },
    { env: bindings, tenant: "t", runId: "r", upstreamKey: null, timeoutMs: 20_000, answerLimit },
  );
}

// The first call loads the MCP client SDK, which takes seconds on a busy machine.
describe("an MCP tool result past the byte bound", { timeout: 30_000 }, () => {
  it("is refused as upstream_answer_too_large (escalate), not read whole", async () => {
    const out = await run(behind(answering("x".repeat(3 * 1_048_576))));
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_answer_too_large" } });
    expect(out.ok ? "" : out.refusal.detail).toMatch(/more than 1048576 bytes/);
  });

  it("is refused the same way when it streams as server-sent events", async () => {
    const out = await run(behind(streaming("x".repeat(64 * 1024))), 16 * 1024);
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_answer_too_large" } });
  });

  it("is read in full within the bound", async () => {
    const out = await run(behind(answering("x".repeat(64 * 1024))), 1_048_576);
    expect(out).toMatchObject({ ok: true });
  });
});
