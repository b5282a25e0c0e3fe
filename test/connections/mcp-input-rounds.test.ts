import { exports } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { auditPage, newRun } from "../helpers.ts";
import { firstJson } from "../mcp/helpers.ts";
import { callNotes, connect, connectUrlOf, LOOPBACK, principal } from "./helpers.ts";
import { StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

const ADD = { name: "notes_add_note", arguments: { text: "standup" } };

/** A person connected to the notes server, as the key `who` calls with. */
async function connected(standIn: StandIn, sub: string) {
  const who = await principal("agent");
  const run = newRun("rounds");
  const { body } = await callNotes(who, run);
  await connect(standIn, connectUrlOf(body), who.key, sub);
  return { who, run };
}

/** A real SDK client on 2026-07-28 that declares form elicitation and answers each with `answer`. */
async function asking(run: string, key: string, answer: (message: string) => unknown) {
  const transport = new StreamableHTTPClientTransport(
    new URL(`http://localhost/v1/runs/${run}/mcp`),
    {
      requestInit: { headers: { Authorization: `Bearer ${key}`, ...LOOPBACK, Host: "localhost" } },
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    },
  );
  const client = new Client(
    { name: "toolfence-test", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", (request) => ({
    action: "accept" as const,
    content: answer(request.params.message) as Record<string, string | number | boolean>,
  }));
  await client.connect(transport);
  return client;
}

/** A raw 2026-07-28 `tools/call` of `notes_add_note`, with what a retry carries. */
async function rawCall(run: string, key: string, extra: Record<string, unknown> = {}) {
  const response = await exports.default.fetch(`http://localhost/v1/runs/${run}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      ...LOOPBACK,
      Host: "localhost",
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Method": "tools/call",
      "Mcp-Name": ADD.name,
      "MCP-Protocol-Version": "2026-07-28",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: crypto.randomUUID(),
      method: "tools/call",
      params: {
        ...ADD,
        ...extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
        },
      },
    }),
  });
  return (await response.json()) as {
    result?: {
      content?: unknown;
      isError?: boolean;
      resultType?: string;
      requestState?: string;
      structuredContent?: unknown;
    };
    error?: { code: number; message: string };
  };
}

describe("MCP 2026-07-28: an upstream that asks the client for input during a call", () => {
  it("relays each round to the client and its answers back, as one call: one charge, one audit entry", async () => {
    const standIn = new StandIn({ asks: 2 }).install();
    const { who, run } = await connected(standIn, "ada");
    const asked: string[] = [];
    const client = await asking(run, who.key, (message) => {
      asked.push(message);
      return asked.length === 1 ? { text: "from the person" } : { ok: true };
    });
    const result = await client.callTool(ADD);
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ author: "ada", text: "from the person" });
    // The upstream's own questions, and its own state, round by round.
    expect(asked).toEqual(["What should the note say?", "Confirm (1)?"]);
    expect(standIn.modern.map((c) => c.requestState)).toEqual([undefined, "round-1", "round-2"]);
    expect(standIn.modern[1]?.inputResponses).toEqual({
      "ask-1": { action: "accept", content: { text: "from the person" } },
    });
    // The upstream was told only what the client declared.
    expect(standIn.modern[0]?.capabilities).toEqual({ elicitation: { form: {} } });
    const { entries } = await auditPage(run);
    const adds = entries.filter((e) => e.tool === "notes_add_note");
    // One admitted entry and its one outcome, for three requests of the client.
    expect(adds.map((e) => e.decision)).toEqual(["pending", "applied"]);
    expect(adds[1]?.of).toBe(adds[0]?.seq);
    expect(new Set(adds.map((e) => e.call_id)).size).toBe(1);
    const status = await who.runStatus(run);
    expect(status.budget.mutations.used).toBe(1);
  });

  it("refuses a tampered request state, and one replayed after it was answered", async () => {
    const standIn = new StandIn({ asks: 2 }).install();
    const { who, run } = await connected(standIn, "ada");
    const first = await rawCall(run, who.key);
    expect(first.result?.resultType).toBe("input_required");
    const state = String(first.result?.requestState);
    expect(state).not.toContain("round-1");
    const answers = { "ask-1": { action: "accept", content: { text: "x" } } };
    const tampered = `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`;
    const altered = await rawCall(run, who.key, {
      requestState: tampered,
      inputResponses: answers,
    });
    expect(altered.error?.code).toBe(-32602);
    expect(standIn.modern).toHaveLength(1);
    const second = await rawCall(run, who.key, { requestState: state, inputResponses: answers });
    expect(second.result?.resultType).toBe("input_required");
    expect(standIn.modern).toHaveLength(2);
    const replayed = await rawCall(run, who.key, { requestState: state, inputResponses: answers });
    expect(replayed.result?.isError).toBe(true);
    expect(firstJson(replayed.result ?? {})).toMatchObject({ reason: "malformed_payload" });
    // Neither refusal reached the upstream.
    expect(standIn.modern).toHaveLength(2);
  });

  it("refuses the request state of another principal's call, and of another call", async () => {
    const standIn = new StandIn({ asks: 1 }).install();
    const { who, run } = await connected(standIn, "ada");
    const first = await rawCall(run, who.key);
    const state = String(first.result?.requestState);
    const answers = { "ask-1": { action: "accept", content: { text: "x" } } };
    const other = await principal("agent");
    const stolen = await rawCall(run, other.key, { requestState: state, inputResponses: answers });
    expect(stolen.error?.code).toBe(-32602);
    const otherArgs = await rawCall(run, who.key, {
      arguments: { text: "something else" },
      requestState: state,
      inputResponses: answers,
    });
    expect(otherArgs.result?.isError).toBe(true);
    expect(firstJson(otherArgs.result ?? {})).toMatchObject({ reason: "malformed_payload" });
    expect(standIn.modern).toHaveLength(1);
    // The call it belongs to still continues with it.
    const own = await rawCall(run, who.key, { requestState: state, inputResponses: answers });
    expect(own.result?.isError).toBeFalsy();
    expect(own.result?.structuredContent).toMatchObject({ text: "x" });
  });
});
