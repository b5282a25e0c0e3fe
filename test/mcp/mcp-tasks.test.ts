import { describe, expect, it } from "vitest";
import { decide, lapse } from "../approvals/helpers.ts";
import { auditPage, callerWith, DEV_KEY, demoTicket, newRun, runStatus } from "../helpers.ts";
import { firstJson, rawMcp } from "./helpers.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const REVISION = "2026-07-28";

/** The header each task method (and tools/call) mirrors from its params (SEP-2243, SEP-2663). */
const NAMED_BY: Record<string, string> = {
  "tools/call": "name",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

let nextId = 1;

/** One 2026-07-28 request, framed as a stateless client frames it; the JSON-RPC answer. */
async function rpc(
  run: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: { tasks?: boolean; key?: string } = {},
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const key = opts.key ?? DEV_KEY;
  const capabilities = opts.tasks === false ? {} : { extensions: { [TASKS]: {} } };
  const named = NAMED_BY[method];
  const res = await rawMcp(run, {
    key,
    headers: {
      "MCP-Protocol-Version": REVISION,
      "Mcp-Method": method,
      ...(named === undefined ? {} : { "Mcp-Name": String(params[named]) }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": REVISION,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    }),
  });
  return res.json();
}

function urgentCall() {
  const ticketId = `T-${crypto.randomUUID()}`;
  return {
    ticketId,
    params: { name: "create_ticket", arguments: { ticket_id: ticketId, priority: "urgent" } },
  };
}

/** A task the fence created for an urgent ticket of `run`: its id and the approval's. */
async function createdTask(run: string) {
  const { ticketId, params } = urgentCall();
  const { result } = await rpc(run, "tools/call", params);
  expect(result).toMatchObject({ resultType: "task", status: "working" });
  const taskId = String(result?.taskId);
  const approval = /approval (apr_[0-9a-f]{32})/.exec(String(result?.statusMessage))?.[1] ?? "";
  expect(approval).not.toBe("");
  return { ticketId, taskId, approval };
}

describe("MCP Tasks (2026-07-28): a call waiting on approval is a task the client polls", () => {
  it("declares the tasks extension on server/discover", async () => {
    const { result } = await rpc(newRun("mcp"), "server/discover");
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it("answers a task, working while pending, then completed with the call's result once approved, run once", async () => {
    const run = newRun("mcp");
    const { ticketId, taskId, approval } = await createdTask(run);
    expect(taskId).toMatch(/^tft_[A-Za-z0-9_-]+$/);

    const pending = await rpc(run, "tasks/get", { taskId });
    expect(pending.result).toMatchObject({
      resultType: "complete",
      taskId,
      status: "working",
      pollIntervalMs: 30_000,
    });
    expect(String(pending.result?.statusMessage)).toContain("nothing has run yet");
    expect((await demoTicket(ticketId)).status).toBe(404);
    expect((await runStatus(run)).budget.mutations.used).toBe(0);

    expect((await decide(run, approval, "approve")).status).toBe(200);
    const done = await rpc(run, "tasks/get", { taskId });
    expect(done.result).toMatchObject({ resultType: "complete", taskId, status: "completed" });
    const result = done.result?.result as Record<string, unknown>;
    expect(result.resultType).toBe("complete");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticket: { ticket_id: ticketId } });
    expect((await demoTicket(ticketId)).status).toBe(200);

    // Polled again, the call's key replays its stored answer: nothing runs or is charged twice.
    const again = await rpc(run, "tasks/get", { taskId });
    expect(again.result).toMatchObject({ status: "completed" });
    const replayed = again.result?.result as {
      structuredContent?: unknown;
      _meta?: Record<string, { replayed?: boolean }>;
    };
    expect(replayed.structuredContent).toEqual(result.structuredContent);
    expect(replayed._meta?.["io.toolfence/fence"]?.replayed).toBe(true);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
    // The audit keeps each poll's call as a tools/call, never the sealed task id.
    const audit = JSON.stringify(await auditPage(run));
    expect(audit).toContain(ticketId);
    expect(audit).not.toContain(taskId.slice(4, 40));
  });

  it("completes with an approval_denied error result when the operator denies", async () => {
    const run = newRun("mcp");
    const { ticketId, taskId, approval } = await createdTask(run);
    await decide(run, approval, "deny", "not during the freeze");
    const { result } = await rpc(run, "tasks/get", { taskId });
    expect(result).toMatchObject({ status: "completed" });
    const toolResult = result?.result as { isError?: boolean };
    expect(toolResult.isError).toBe(true);
    expect(firstJson(toolResult)).toMatchObject({ reason: "approval_denied" });
    expect((await demoTicket(ticketId)).status).toBe(404);
  });

  it("completes with an approval_expired error result when the approval lapses", async () => {
    const run = newRun("mcp");
    const { taskId, approval } = await createdTask(run);
    await lapse(run, approval);
    const { result } = await rpc(run, "tasks/get", { taskId });
    expect(result).toMatchObject({ status: "completed" });
    expect(firstJson(result?.result as { isError?: boolean })).toMatchObject({
      reason: "approval_expired",
    });
  });

  it("finds no task whose id was altered or forged", async () => {
    const run = newRun("mcp");
    const { taskId } = await createdTask(run);
    const last = taskId.at(-2) === "A" ? "B" : "A";
    const altered = `${taskId.slice(0, -2)}${last}${taskId.slice(-1)}`;
    for (const id of [altered, "tft_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "786512e2-9e0d-44bd"]) {
      const { error } = await rpc(run, "tasks/get", { taskId: id });
      expect(error).toMatchObject({
        code: -32602,
        message: "Failed to retrieve task: Task not found",
      });
    }
  });

  it("finds no task of another run, nor of another tenant's run of the same name", async () => {
    const run = newRun("mcp");
    const { taskId } = await createdTask(run);
    const other = await rpc(newRun("mcp"), "tasks/get", { taskId });
    expect(other.error).toMatchObject({ code: -32602 });
    const stranger = await callerWith();
    const foreign = await rpc(run, "tasks/get", { taskId }, { key: stranger.key ?? "" });
    expect(foreign.error).toMatchObject({ code: -32602 });
  });

  it("gives the pending result, not a task, to a client that did not declare the extension", async () => {
    const run = newRun("mcp");
    const { params } = urgentCall();
    const { result } = await rpc(run, "tools/call", params, { tasks: false });
    expect(result?.resultType).toBe("complete");
    expect(result?.structuredContent).toMatchObject({ approval: { status: "pending" } });
  });

  it("refuses a task method from a client that did not declare the extension, -32021", async () => {
    const run = newRun("mcp");
    const { taskId } = await createdTask(run);
    const { error } = await rpc(run, "tasks/get", { taskId }, { tasks: false });
    expect(error).toMatchObject({ code: -32021 });
  });

  it("acknowledges tasks/cancel and tasks/update, and leaves the approval to its operator", async () => {
    const run = newRun("mcp");
    const { ticketId, taskId, approval } = await createdTask(run);
    const updated = await rpc(run, "tasks/update", { taskId, inputResponses: {} });
    expect(updated.result).toMatchObject({ resultType: "complete" });
    const cancelled = await rpc(run, "tasks/cancel", { taskId });
    expect(cancelled.result).toMatchObject({ resultType: "complete" });
    expect((await rpc(run, "tasks/cancel", { taskId: "tft_x" })).error).toMatchObject({
      code: -32602,
    });
    expect((await decide(run, approval, "approve")).status).toBe(200);
    const { result } = await rpc(run, "tasks/get", { taskId });
    expect(result).toMatchObject({ status: "completed" });
    expect((await demoTicket(ticketId)).status).toBe(200);
  });
});
