import { afterAll, describe, expect, inject, it } from "vitest";
import { type McpServerProcess, startEverything } from "../../scripts/lib/mcp-everything.ts";

// The fence in wrangler dev calls the reference MCP server the global setup started; the
// contracts are the committed `everything_*` ones, imported from that server.
const url = inject("fenceUrl");
const mcpUrl = inject("mcpUrl");
const mcpPid = inject("mcpPid");
const auth = { Authorization: "Bearer tf_dev_local_key", "Content-Type": "application/json" };

/** The parts of a call's answer these tests read. */
interface CallBody {
  decision: string;
  reason?: string;
  detail?: string;
  issues: Array<{ path: string }>;
  result: { content: Array<{ text: string }>; structuredContent: Record<string, unknown> };
}

async function propose(run: string, tool: string, args: unknown) {
  const res = await fetch(`${url}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ tool, args }),
  });
  return {
    status: res.status,
    cache: res.headers.get("X-Cache"),
    body: (await res.json()) as CallBody,
  };
}

async function waitClosed(endpoint: string): Promise<void> {
  for (;;) {
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(500) });
      await new Promise((r) => setTimeout(r, 100));
    } catch {
      return;
    }
  }
}

const freshRun = () => `mcp-${crypto.randomUUID()}`;

describe("a tool of a real MCP server behind the fence", () => {
  it("applies a call and serves the same read from the cache", async () => {
    const run = freshRun();
    const first = await propose(run, "everything_echo", { message: "fenced" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      decision: "applied",
      result: { content: [{ type: "text", text: "Echo: fenced" }] },
    });
    const again = await propose(run, "everything_echo", { message: "fenced" });
    expect(again.body.decision).toBe("cached");
    expect(again.body.result).toEqual(first.body.result);
  });

  it("returns the arithmetic tool's answer and structured content", async () => {
    const sum = await propose(freshRun(), "everything_get_sum", { a: 19, b: 23 });
    expect(sum.body.result.content[0]?.text).toBe("The sum of 19 and 23 is 42.");
    const weather = await propose(freshRun(), "everything_get_structured_content", {
      location: "Chicago",
    });
    expect(weather.status).toBe(200);
    expect(Object.keys(weather.body.result.structuredContent).sort()).toEqual([
      "conditions",
      "humidity",
      "temperature",
    ]);
  });

  it("blocks arguments that break the pinned contract before the server sees them", async () => {
    const res = await propose(freshRun(), "everything_get_sum", { a: "19", b: 23 });
    // Had the server seen it, its own validation would answer isError: upstream_rejected.
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ reason: "contract_violation", decision: "block" });
    expect(res.body.issues[0]?.path).toBe("a");
  });

  it("escalates an isError result with the server's text", async () => {
    const res = await propose(freshRun(), "everything_get_resource_reference", { resourceId: 0 });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ reason: "upstream_rejected", decision: "escalate" });
    expect(res.body.detail).toContain("Invalid resourceId: 0");
  });

  it("escalates an answer outside the pinned output contract", async () => {
    const res = await propose(freshRun(), "everything_echo", { message: "two\nlines" });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ reason: "output_contract_violation", decision: "escalate" });
  });
});

describe("the MCP server stopped mid-run", () => {
  let restarted: McpServerProcess | undefined;
  afterAll(async () => {
    await restarted?.stop();
  });

  it("answers a retry row, and the same call applies once the server is back", async () => {
    const port = Number(new URL(mcpUrl).port);
    const run = freshRun();
    expect((await propose(run, "everything_get_sum", { a: 1, b: 1 })).status).toBe(200);
    // The global setup's server, stopped by its process id; its teardown sees it gone.
    process.kill(mcpPid, "SIGTERM");
    await waitClosed(mcpUrl);
    const failed = await propose(run, "everything_get_sum", { a: 2, b: 2 });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ reason: "upstream_unavailable", decision: "retry" });
    restarted = await startEverything(port);
    const retried = await propose(run, "everything_get_sum", { a: 2, b: 2 });
    expect(retried.body.result.content[0]?.text).toBe("The sum of 2 and 2 is 4.");
  });
});
