import { describe, expect, it } from "vitest";
import { MAX_NOTICE_TEXT, MAX_NOTICES, type UpstreamNotice } from "../../src/execute/mcp.ts";
import { HOSTILE_TOKEN } from "../e2e/hostile-mcp-server.ts";
import { behind, executeBehind, initialized } from "./stand-in.ts";

/** One SSE event carrying a JSON-RPC message. */
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * A server that answers `tools/call` on an SSE stream: `count` progress notifications for the
 * token the call sent and as many log messages (each with `data`), then its result.
 */
function notifying(count: number, data: (i: number) => string) {
  const init = initialized({});
  return behind((m) => {
    if (m.method !== "tools/call") return init(m);
    const token = (m as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta
      ?.progressToken;
    const frames: string[] = [];
    for (let i = 0; i < count; i++) {
      const progress = { progressToken: token, progress: i, total: count, message: data(i) };
      frames.push(event({ jsonrpc: "2.0", method: "notifications/progress", params: progress }));
      const log = { level: "info", logger: "stand-in", data: data(i) };
      frames.push(event({ jsonrpc: "2.0", method: "notifications/message", params: log }));
    }
    const result = { content: [{ type: "text", text: "done" }] };
    frames.push(event({ jsonrpc: "2.0", id: m.id, result }));
    return new Response(frames.join(""), { headers: { "Content-Type": "text/event-stream" } });
  });
}

async function run(bindings: Env): Promise<{ ok: boolean; notices: UpstreamNotice[] }> {
  const notices: UpstreamNotice[] = [];
  const out = await executeBehind(bindings, { notify: (n) => notices.push(n) });
  return { ok: out.ok, notices };
}

describe("an MCP upstream's notifications during a call", () => {
  it("reach the caller in order, progress and log messages both", async () => {
    const { ok, notices } = await run(notifying(3, (i) => `step ${i}`));
    expect(ok).toBe(true);
    expect(notices).toEqual([
      { kind: "progress", progress: 0, total: 3, message: "step 0" },
      { kind: "log", level: "info", logger: "stand-in", data: "step 0" },
      { kind: "progress", progress: 1, total: 3, message: "step 1" },
      { kind: "log", level: "info", logger: "stand-in", data: "step 1" },
      { kind: "progress", progress: 2, total: 3, message: "step 2" },
      { kind: "log", level: "info", logger: "stand-in", data: "step 2" },
    ]);
  });

  it("are bounded in number and in the size of each text", async () => {
    const { ok, notices } = await run(notifying(MAX_NOTICES, () => "y".repeat(5_000)));
    expect(ok).toBe(true);
    expect(notices).toHaveLength(MAX_NOTICES);
    for (const n of notices) {
      const text = n.kind === "log" ? n.data : (n.message ?? "");
      expect(text.length).toBe(MAX_NOTICE_TEXT);
    }
  });

  it("pass the tool's result rules: a secret in a log message is not relayed", async () => {
    const { notices } = await run(notifying(1, () => `token ${HOSTILE_TOKEN} in use`));
    expect(notices).toHaveLength(2);
    for (const n of notices) {
      expect(JSON.stringify(n)).not.toContain(HOSTILE_TOKEN);
    }
  });
});
