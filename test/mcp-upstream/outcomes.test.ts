import { describe, expect, it } from "vitest";
import type { ToolContract } from "../../src/core/contract.ts";
import { execute } from "../../src/execute/execute.ts";
import { MAX_UPSTREAM_TEXT } from "../../src/execute/mcp.ts";
import { type Answer, behind, standInContract as contract, initialized } from "./stand-in.ts";

/** The stand-in's tool as a mutation. */
const mutation: ToolContract = { ...contract, effect: "mutate" };

/** `tools/call` answered with 200 and the first bytes of its result; then the connection drops. */
const cutToolCall: Answer = (m) => {
  if (m.method === "initialize") return initialized({})(m);
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new TypeError("Network connection lost."));
      sent = true;
      controller.enqueue(new TextEncoder().encode(`{"jsonrpc":"2.0","id":${m.id},"result":{`));
    },
  });
  return new Response(body, { headers: { "Content-Type": "application/json" } });
};

// How MCP outcomes the reference server never produces (HTTP refusals, an error text too long
// to carry) map onto the decision table. The stand-in is an HTTP status or a minimal JSON-RPC
// answer behind a service binding; the real servers are covered in test/e2e.
function run(bindings: Env, timeoutMs = 2_000, tool: ToolContract = contract) {
  return execute(
    tool,
    { service: "checkout" },
    { env: bindings, tenant: "t", runId: "r", upstreamKey: null, timeoutMs },
  );
}

describe("MCP upstream outcomes", () => {
  for (const status of [401, 403]) {
    it(`maps HTTP ${status} to upstream_authz (escalate)`, async () => {
      const out = await run(behind(() => new Response("no", { status })));
      expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_authz" } });
    });
  }

  it("maps HTTP 503 to upstream_unavailable (retry)", async () => {
    const out = await run(behind(() => new Response("busy", { status: 503 })));
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_unavailable" } });
  });

  it("maps a server that never answers to upstream_timeout (retry)", async () => {
    const out = await run(
      behind(
        () =>
          new Response(new ReadableStream(), { headers: { "Content-Type": "application/json" } }),
      ),
      200,
    );
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_timeout" } });
  });

  it("carries an isError text into upstream_rejected, cut to a bounded size", async () => {
    const text = "x".repeat(MAX_UPSTREAM_TEXT * 4);
    const out = await run(
      behind(initialized({ content: [{ type: "text", text }], isError: true })),
    );
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_rejected" } });
    const detail = out.ok ? "" : out.refusal.detail;
    expect(detail).toContain(`(${MAX_UPSTREAM_TEXT * 3} more characters)`);
    expect(detail.length).toBeLessThan(MAX_UPSTREAM_TEXT + 100);
  });

  it("maps a JSON-RPC error answer to upstream_rejected (escalate)", async () => {
    const out = await run(
      behind((m) =>
        m.method === "initialize"
          ? initialized({})(m)
          : Response.json({
              jsonrpc: "2.0",
              id: m.id,
              error: { code: -32602, message: "Unknown tool" },
            }),
      ),
    );
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_rejected" } });
  });

  it("settles a mutation whose tools/call answer was cut after a 200 as upstream_outcome_unknown", async () => {
    const out = await run(behind(cutToolCall), 2_000, mutation);
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_outcome_unknown" } });
    expect(out.ok ? "" : out.refusal.detail).toContain("HTTP 200");
  });

  it("lets a read whose tools/call answer was cut be retried", async () => {
    const out = await run(behind(cutToolCall));
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_unavailable" } });
  });

  it("lets a mutation be retried when only the session's start was cut: the tool was not called", async () => {
    const cutStart: Answer = (m) =>
      m.method === "initialize" ? cutToolCall({ ...m, method: "tools/call" }) : cutToolCall(m);
    const out = await run(behind(cutStart), 2_000, mutation);
    expect(out).toMatchObject({ ok: false, refusal: { reason: "upstream_unavailable" } });
  });
});
