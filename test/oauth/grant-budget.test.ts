import { describe, expect, it } from "vitest";
import { connected, mcp } from "./helpers.ts";

interface RpcAnswer {
  result?: { tools?: { name: string }[]; isError?: boolean; content?: { text: string }[] };
  error?: { code: number };
}

async function rpc(token: string, method: string, params: unknown = {}): Promise<RpcAnswer> {
  const res = await mcp(token, method, params);
  expect(res.status).toBe(200);
  return (await res.json()) as RpcAnswer;
}

describe("a connector's grant is a budget", { timeout: 20_000 }, () => {
  it("tools/list lists only the tools the person granted", async () => {
    const { tokens } = await connected({
      tools: ["noop", "get_ticket"],
      max_mutations: 1,
      max_paid_calls: 5,
      deadline_seconds: 600,
    });
    const listed = await rpc(tokens.access_token, "tools/list");
    expect(listed.result?.tools?.map((t) => t.name).sort()).toEqual(["get_ticket", "noop"]);
  });

  it("calls spend the grant's run budget and are refused past it", async () => {
    const { tokens } = await connected({
      tools: ["create_ticket"],
      max_mutations: 1,
      max_paid_calls: 5,
      deadline_seconds: 600,
    });
    const ticket = (id: string) => ({
      name: "create_ticket",
      arguments: { ticket_id: id, title: "Printer on fire", priority: "low" },
    });
    const first = await rpc(tokens.access_token, "tools/call", ticket(`T-${crypto.randomUUID()}`));
    expect(first.result?.isError).toBeFalsy();
    const second = await rpc(tokens.access_token, "tools/call", ticket(`T-${crypto.randomUUID()}`));
    expect(second.result?.isError).toBe(true);
    expect(second.result?.content?.[0]?.text).toContain("budget_exhausted");
  });
});
