import {
  Agent,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from "@openai/agents";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createClient } from "../../client/index.ts";
import { fenceAgentTools } from "../../client/openai-agents.ts";

const fence = createClient({ url: inject("fenceUrl"), key: "tf_dev_local_key" });

beforeAll(() => {
  // No network here: the SDK must not try to export traces.
  setTracingDisabled(true);
});

/** A scripted model: one function call per turn, then a final message. */
class ScriptedModel implements Model {
  private turn = 0;
  constructor(private readonly calls: { tool: string; args: unknown }[]) {}

  async getResponse(): Promise<ModelResponse> {
    const n = this.turn++;
    const call = this.calls[n];
    const output =
      call === undefined
        ? [
            {
              type: "message" as const,
              role: "assistant" as const,
              status: "completed" as const,
              content: [{ type: "output_text" as const, text: "done" }],
            },
          ]
        : [
            {
              type: "function_call" as const,
              callId: `call-${n}`,
              name: call.tool,
              arguments: JSON.stringify(call.args),
              status: "completed" as const,
            },
          ];
    return { usage: new Usage(), output, responseId: `r-${n}` };
  }

  // biome-ignore lint/correctness/useYield: the scripted model never streams.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

async function runAgent(runId: string, calls: { tool: string; args: unknown }[]) {
  const fenceRun = fence.run(runId);
  const agent = new Agent({
    name: "incident",
    instructions: "Handle the incident.",
    tools: await fenceAgentTools(fenceRun),
    model: new ScriptedModel(calls),
  });
  const result = await run(agent, "Handle the incident.", { maxTurns: calls.length + 2 });
  const outputs = result.newItems
    .filter((i) => i.type === "tool_call_output_item")
    .map((i) => JSON.parse(String((i as { output: unknown }).output)) as Record<string, unknown>);
  return { fenceRun, outputs, result };
}

describe("an OpenAI Agents SDK run through the fence", () => {
  it("gets a malformed call back as output it can re-plan from, then succeeds", async () => {
    const ticket = `T-${crypto.randomUUID()}`;
    const { outputs, result } = await runAgent(`agents-${crypto.randomUUID()}`, [
      { tool: "create_ticket", args: { ticket_id: ticket, priority: "HIGH" } },
      { tool: "create_ticket", args: { ticket_id: ticket, priority: "high" } },
    ]);
    expect(outputs[0]).toMatchObject({
      refused: true,
      reason: "contract_violation",
      issues: [{ path: "priority" }],
    });
    expect(outputs[1]).toMatchObject({ ticket: { ticket_id: ticket, priority: "high" } });
    expect(result.finalOutput).toBe("done");
  });

  it("stops a looping model at the run's budget", async () => {
    const loop = Array.from({ length: 4 }, () => ({
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}` },
    }));
    const { fenceRun, outputs } = await runAgent(`agents-${crypto.randomUUID()}`, loop);
    expect(outputs[3]).toMatchObject({ refused: true, reason: "budget_exhausted" });
    expect(await fenceRun.status()).toMatchObject({ budget: { mutations: { used: 3 } } });
  });

  it("replays a mutation the model repeats", async () => {
    const ticket = `T-${crypto.randomUUID()}`;
    const create = { tool: "create_ticket", args: { ticket_id: ticket } };
    const { fenceRun, outputs } = await runAgent(`agents-${crypto.randomUUID()}`, [create, create]);
    expect(outputs[1]).toEqual(outputs[0]);
    expect(await fenceRun.status()).toMatchObject({ decisions: { applied: 1, replayed: 1 } });
  });
});
