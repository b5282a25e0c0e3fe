import { describe, expect, it } from "vitest";
import { callerWith, json, newRun } from "./helpers.ts";

describe("a key bound to a subset of tools", () => {
  it("sees only its tools in the catalogue, in every format", async () => {
    const agent = await callerWith({ tools: ["noop", "fetch_service_logs"] });
    const plain = await json<{ tools: { name: string }[] }>(await agent.get("/v1/tools"));
    expect(plain.tools.map((t) => t.name).sort()).toEqual(["fetch_service_logs", "noop"]);
    const openai = await json<{ tools: { function: { name: string } }[] }>(
      await agent.get("/v1/tools?format=openai"),
    );
    expect(openai.tools.map((t) => t.function.name).sort()).toEqual(["fetch_service_logs", "noop"]);
  });

  it("is refused any other tool with tool_not_allowed, and charged nothing", async () => {
    const agent = await callerWith({ tools: ["noop"] });
    const run = newRun();
    const res = await agent.propose(run, {
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}` },
      idempotency_key: "k-subset-01",
    });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "tool_not_allowed" });
    expect((await agent.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await agent.runStatus(run)).budget.mutations.used).toBe(0);
  });
});
