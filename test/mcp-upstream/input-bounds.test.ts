import { describe, expect, it } from "vitest";
import { MAX_INPUT_REQUEST_BYTES, MAX_INPUT_REQUESTS } from "../../src/execute/mcp.ts";
import { HOSTILE_TOKEN } from "../e2e/hostile-mcp-server.ts";
import { behind, executeBehind } from "./stand-in.ts";

const rpc = (id: number | undefined, result: unknown) =>
  Response.json({ jsonrpc: "2.0", id, result });

/** A 2026-07-28 server's answer to `server/discover`. */
const discovered = (id: number | undefined) =>
  rpc(id, {
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {} },
    serverInfo: { name: "s", version: "1" },
  });

/** A 2026-07-28 server whose `tools/call` asks the client for `inputRequests`. */
function asking(inputRequests: Record<string, unknown>) {
  return behind((m) =>
    m.method === "server/discover"
      ? discovered(m.id)
      : rpc(m.id, { resultType: "input_required", inputRequests, requestState: "s1" }),
  );
}

const elicit = (message: string) => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: {} } },
});

const run = (bindings: Env, declared: Record<string, unknown>) =>
  executeBehind(bindings, { input: { declared } });

describe("an MCP upstream's request for the client's input", () => {
  it("is handed on, with the upstream's state, within the bounds", async () => {
    const out = await run(asking({ a: elicit("name?") }), { elicitation: {} });
    expect(out.ok).toBe(false);
    expect(!out.ok && out.input).toEqual({
      inputRequests: { a: elicit("name?") },
      requestState: "s1",
    });
  });

  it("passes an elicitation's message through the tool's result rules", async () => {
    const out = await run(asking({ a: elicit(`token ${HOSTILE_TOKEN} please`) }), {
      elicitation: {},
    });
    expect(!out.ok && out.input).toBeDefined();
    expect(JSON.stringify(!out.ok && out.input)).not.toContain(HOSTILE_TOKEN);
  });

  it("fails the call when it asks by a method the client did not declare", async () => {
    const out = await run(asking({ a: elicit("name?") }), { sampling: {} });
    expect(!out.ok && out.input).toBeUndefined();
    expect(!out.ok && out.refusal.reason).toBe("output_contract_violation");
    expect(!out.ok && out.refusal.detail).toContain("did not declare");
  });

  it("fails the call past the number of requests, or the size of one", async () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_INPUT_REQUESTS + 1 }, (_, i) => [`k${i}`, elicit("?")]),
    );
    const tooMany = await run(asking(many), { elicitation: {} });
    expect(!tooMany.ok && tooMany.refusal.reason).toBe("output_contract_violation");
    const large = await run(asking({ a: elicit("x".repeat(MAX_INPUT_REQUEST_BYTES)) }), {
      elicitation: {},
    });
    expect(!large.ok && large.refusal.reason).toBe("output_contract_violation");
    expect(!large.ok && large.refusal.detail).toContain(`past ${MAX_INPUT_REQUEST_BYTES}`);
  });

  it("keeps the capabilities the upstream said the call needs (-32021), for the client", async () => {
    const error = {
      code: -32021,
      message: "the request's client capabilities do not declare the required capability",
      data: { requiredCapabilities: { sampling: {} } },
    };
    const refusing = behind((m) =>
      m.method === "server/discover"
        ? discovered(m.id)
        : Response.json({ jsonrpc: "2.0", id: m.id, error }, { status: 400 }),
    );
    const out = await run(refusing, {});
    expect(out.ok).toBe(false);
    expect(!out.ok && "missing" in out && out.missing).toEqual({ sampling: {} });
  });
});
