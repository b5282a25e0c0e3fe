import { generateText, isStepCount } from "ai";
import { fenceTools } from "toolfence/ai";
import type { Decision, Problem } from "toolfence/client";
import { createClient } from "toolfence/client";
import { describe, expect, inject, it } from "vitest";
import { scriptedModel } from "./scripted-ai-model.ts";

const fence = createClient({ url: inject("fenceUrl"), key: "tf_dev_local_key" });

function runId(): string {
  return `ai-${crypto.randomUUID()}`;
}

describe("an AI SDK agent loop through the fence", () => {
  it("gets a malformed call back as a structured block, re-plans, and succeeds", async () => {
    const ticket = `T-${crypto.randomUUID().slice(0, 8)}`;
    const seen: unknown[][] = [];
    const model = scriptedModel((results, turn) => {
      seen.push(results);
      if (turn === 0)
        return [{ tool: "create_ticket", args: { ticket_id: ticket, priority: "URGENT" } }];
      const block = results[0] as Problem;
      if (turn === 1 && block.reason === "contract_violation") {
        const fix = block.issues?.[0]?.path === "priority" ? "urgent" : "normal";
        return [{ tool: "create_ticket", args: { ticket_id: ticket, priority: fix } }];
      }
      return "done";
    });

    // README: ai-sdk
    const run = fence.run(runId());
    const result = await generateText({
      model,
      tools: await fenceTools(run),
      prompt: "Open an urgent ticket.",
      stopWhen: isStepCount(5),
    });
    // README: end

    const [first, second] = result.steps.map((s) => s.toolResults[0]?.output as Decision);
    expect(first).toMatchObject({ decision: "block", reason: "contract_violation", status: 422 });
    expect((first as Problem).issues?.[0]).toMatchObject({
      path: "priority",
      received: '"URGENT"',
    });
    expect(second).toMatchObject({
      decision: "applied",
      result: { ticket: { priority: "urgent" } },
    });
    expect(result.text).toBe("done");
    const status = await run.status();
    expect(status.budget.mutations.used).toBe(1);
    expect(status.decisions).toMatchObject({ block: 1, applied: 1 });
  });

  it("stops a looping model with the run's budget", async () => {
    const run = fence.run(runId());
    await run.limits({ max_mutations: 2 });
    const model = scriptedModel((results, turn) => {
      const last = results[0] as Decision | undefined;
      if (last?.decision === "block") return `stopped: ${(last as Problem).reason}`;
      const ticket = `T-loop-${crypto.randomUUID().slice(0, 8)}-${turn}`;
      return [{ tool: "create_ticket", args: { ticket_id: ticket, title: "again" } }];
    });

    const result = await generateText({
      model,
      tools: await fenceTools(run),
      prompt: "Keep opening tickets.",
      stopWhen: isStepCount(20),
    });

    const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output as Decision));
    expect(outputs.map((o) => o.decision)).toEqual(["applied", "applied", "block"]);
    expect(result.text).toBe("stopped: budget_exhausted");
    expect((await run.status()).budget.mutations).toMatchObject({ used: 2, left: 0 });
  });

  it("replays a mutation the model proposes twice instead of applying it again", async () => {
    const ticket = `T-${crypto.randomUUID().slice(0, 8)}`;
    const args = { ticket_id: ticket, title: "disk full on db-1" };
    const model = scriptedModel((_results, turn) =>
      turn < 2 ? [{ tool: "create_ticket", args }] : "done",
    );
    const run = fence.run(runId());

    const result = await generateText({
      model,
      tools: await fenceTools(run),
      prompt: "Open a ticket.",
      stopWhen: isStepCount(5),
    });

    const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output as Decision));
    expect(outputs.map((o) => o.decision)).toEqual(["applied", "replayed"]);
    expect(outputs[1]).toMatchObject({ result: (outputs[0] as { result: unknown }).result });
    expect((await run.status()).budget.mutations.used).toBe(1);
  });
});
