import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, inject, it } from "vitest";
import { fenceTools } from "../../client/ai.ts";
import { createClient } from "../../client/index.ts";

const fence = createClient({ url: inject("fenceUrl"), key: "tf_dev_local_key" });

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A scripted model: one tool call per step, then a final text. */
function scripted(calls: { tool: string; args: unknown }[]) {
  const steps = [
    ...calls.map((c, i) => ({
      content: [
        {
          type: "tool-call" as const,
          toolCallId: `call-${i}`,
          toolName: c.tool,
          input: JSON.stringify(c.args),
        },
      ],
      finishReason: { unified: "tool-calls" as const, raw: undefined },
      usage: USAGE,
      warnings: [],
    })),
    {
      content: [{ type: "text" as const, text: "done" }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage: USAGE,
      warnings: [],
    },
  ];
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => steps[Math.min(n++, steps.length - 1)] as never,
  });
}

async function runAgent(runId: string, calls: { tool: string; args: unknown }[]) {
  const run = fence.run(runId);
  const result = await generateText({
    model: scripted(calls),
    tools: await fenceTools(run),
    prompt: "Handle the incident.",
    stopWhen: isStepCount(calls.length + 1),
  });
  return { run, outputs: result.steps.flatMap((s) => s.toolResults.map((r) => r.output)) };
}

describe("an AI SDK agent loop through the fence", () => {
  it("gets a malformed call back as a result it can re-plan from, then succeeds", async () => {
    const ticket = `T-${crypto.randomUUID()}`;
    const { outputs } = await runAgent(`ai-${crypto.randomUUID()}`, [
      { tool: "create_ticket", args: { ticket_id: ticket, priority: "HIGH" } },
      { tool: "create_ticket", args: { ticket_id: ticket, priority: "high" } },
    ]);
    expect(outputs[0]).toMatchObject({
      refused: true,
      decision: "block",
      reason: "contract_violation",
      issues: [{ path: "priority" }],
    });
    expect(outputs[1]).toMatchObject({ ticket: { ticket_id: ticket, priority: "high" } });
  });

  it("stops a looping model at the run's budget", async () => {
    const loop = Array.from({ length: 5 }, () => ({
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}` },
    }));
    const { run, outputs } = await runAgent(`ai-${crypto.randomUUID()}`, loop);
    expect(outputs.slice(0, 3).every((o) => (o as { ticket?: unknown }).ticket !== undefined)).toBe(
      true,
    );
    expect(outputs.slice(3)).toEqual([
      expect.objectContaining({ refused: true, reason: "budget_exhausted" }),
      expect.objectContaining({ refused: true, reason: "budget_exhausted" }),
    ]);
    expect(await run.status()).toMatchObject({ budget: { mutations: { used: 3, limit: 3 } } });
  });

  it("replays a mutation the model repeats", async () => {
    const ticket = `T-${crypto.randomUUID()}`;
    const create = { tool: "create_ticket", args: { ticket_id: ticket, title: "Once" } };
    const { run, outputs } = await runAgent(`ai-${crypto.randomUUID()}`, [create, create]);
    expect(outputs[1]).toEqual(outputs[0]);
    expect(await run.status()).toMatchObject({
      budget: { mutations: { used: 1 } },
      decisions: { applied: 1, replayed: 1 },
    });
  });
});
