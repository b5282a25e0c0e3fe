import {
  createTaskSessionFromClient,
  type JsonRpcResponse,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";
import { describe, expect, it } from "vitest";
import { decide } from "../approvals/helpers.ts";
import { demoTicket, newRun, runStatus } from "../helpers.ts";
import { firstJson, mcpClient, rawMcp } from "./helpers.ts";

const REVISION = "2026-07-28";

/** The headers a 2026-07-28 request mirrors from its body (SEP-2243, SEP-2663). */
function standardHeaders(request: { method: string; params?: Record<string, unknown> }) {
  const named = request.params?.taskId ?? request.params?.name;
  return {
    "MCP-Protocol-Version": REVISION,
    "Mcp-Method": request.method,
    ...(typeof named === "string" ? { "Mcp-Name": named } : {}),
  };
}

let nextId = 1;

/**
 * The host's raw request path the requester needs for 2026-07-28 task traffic, which the SDK
 * client's codecs would reject: one POST per request, the id owned here.
 */
function rawDispatch(run: string) {
  return async (request: unknown): Promise<JsonRpcResponse> => {
    const message = { ...(request as { method: string; params?: Record<string, unknown> }) };
    const res = await rawMcp(run, {
      headers: standardHeaders(message),
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, ...message }),
    });
    const answer = (await res.json()) as { result?: unknown; error?: unknown };
    return answer.error === undefined
      ? ({ kind: "result", result: answer.result } as JsonRpcResponse)
      : ({ kind: "error", error: answer.error } as JsonRpcResponse);
  };
}

/** The official Tasks requester over a real SDK client connected to the run's endpoint. */
async function requester(run: string) {
  const client = await mcpClient(run, { era: "auto" });
  const session = createTaskSessionFromClient(client, {
    endpointId: `toolfence-${run}`,
    rawDispatch: rawDispatch(run),
    v2RequestFraming: {
      protocolVersion: REVISION,
      clientInfo: { name: "toolfence-test", version: "1.0.0" },
      clientCapabilities: {},
    },
  });
  return { client, session };
}

describe("the official MCP Tasks requester against a call waiting on approval", () => {
  it("gets a task, sees it working, and settles it with the call's result once approved", async () => {
    const run = newRun("mcp");
    const ticketId = `T-${crypto.randomUUID()}`;
    const { client, session } = await requester(run);
    expect(session.capabilities.execution).toBe(true);
    const execution = await session.callTool("create_ticket", {
      ticket_id: ticketId,
      priority: "urgent",
    });
    if (execution.kind !== "task") throw new Error("expected a task-backed execution");
    const { taskId } = execution.handle;
    await execution.detach();

    const task = session.task(taskId);
    const working = await task.snapshot();
    expect(working.status).toBe("working");
    expect(working.suggestedPollIntervalMs).toBe(30_000);
    const approval = /approval (apr_[0-9a-f]{32})/.exec(working.statusMessage ?? "")?.[1] ?? "";
    expect((await demoTicket(ticketId)).status).toBe(404);

    expect((await decide(run, approval, "approve")).status).toBe(200);
    const result = resultFromTaskOutcome(await task.result()) as {
      isError?: boolean;
      structuredContent?: unknown;
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticket: { ticket_id: ticketId } });
    expect((await task.snapshot()).status).toBe("completed");
    expect((await demoTicket(ticketId)).status).toBe(200);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
    await session.close();
    await client.close();
  });

  it("settles a denied call as the tool's error result, approval_denied", async () => {
    const run = newRun("mcp");
    const { client, session } = await requester(run);
    const execution = await session.callTool("create_ticket", {
      ticket_id: `T-${crypto.randomUUID()}`,
      priority: "urgent",
    });
    if (execution.kind !== "task") throw new Error("expected a task-backed execution");
    const task = session.task(execution.handle.taskId);
    await execution.detach();
    const approval = /approval (apr_[0-9a-f]{32})/.exec(
      (await task.snapshot()).statusMessage ?? "",
    );
    await decide(run, approval?.[1] ?? "", "deny", "not during the freeze");
    const result = resultFromTaskOutcome(await task.result()) as { isError?: boolean };
    expect(result.isError).toBe(true);
    expect(firstJson(result)).toMatchObject({ reason: "approval_denied" });
    await session.close();
    await client.close();
  });
});
