import { Agent, run as runAgent, setTracingDisabled } from "@openai/agents";
import type { Decision, Problem } from "toolfence/client";
import { createClient } from "toolfence/client";
import { fenceAgentTools } from "toolfence/openai-agents";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { scriptedAgentsModel } from "./scripted-agents-model.ts";

const fence = createClient({ url: inject("fenceUrl"), key: "tf_dev_local_key" });

function runId(): string {
  return `agents-${crypto.randomUUID()}`;
}

// Traces would be exported to OpenAI; these runs stay on loopback.
beforeAll(() => setTracingDisabled(true));

describe("an OpenAI Agents SDK run through the fence", () => {
  it("gets a malformed call back as a structured block, re-plans, and succeeds", async () => {
    const service = "checkout";
    const seen: unknown[][] = [];
    const model = scriptedAgentsModel((results, turn) => {
      seen.push(results);
      if (turn === 0) return [{ tool: "fetch_service_logs", args: { service, window: "1 hour" } }];
      const last = results[0] as Decision;
      if (turn === 1 && last.decision === "block") {
        return [{ tool: "fetch_service_logs", args: { service, window: "1h" } }];
      }
      return "read the logs";
    });

    // README: openai-agents
    const run = fence.run(runId());
    const agent = new Agent({ name: "oncall", model, tools: await fenceAgentTools(run) });
    const result = await runAgent(agent, "What is wrong with checkout?", { maxTurns: 5 });
    // README: end

    expect(result.finalOutput).toBe("read the logs");
    const [block, success] = [seen[1]?.[0], seen[2]?.[0]] as [Problem, Decision];
    expect(block).toMatchObject({ decision: "block", reason: "contract_violation" });
    expect(block.issues?.[0]).toMatchObject({ path: "window", received: '"1 hour"' });
    expect(success).toMatchObject({ decision: "applied", result: { logs: expect.any(Array) } });
  });

  it("stops a looping model with the run's budget", async () => {
    const run = fence.run(runId());
    await run.limits({ max_mutations: 2 });
    const decisions: string[] = [];
    const model = scriptedAgentsModel((results, turn) => {
      const last = results[0] as Decision | undefined;
      if (last !== undefined) decisions.push(last.decision);
      if (last?.decision === "block") return `stopped: ${(last as Problem).reason}`;
      const ticket = `T-loop-${crypto.randomUUID().slice(0, 8)}-${turn}`;
      return [{ tool: "create_ticket", args: { ticket_id: ticket, title: "again" } }];
    });

    const agent = new Agent({ name: "looper", model, tools: await fenceAgentTools(run) });
    const result = await runAgent(agent, "Keep opening tickets.", { maxTurns: 20 });

    expect(decisions).toEqual(["applied", "applied", "block"]);
    expect(result.finalOutput).toBe("stopped: budget_exhausted");
    expect((await run.status()).budget.mutations).toMatchObject({ used: 2, left: 0 });
  });

  it("replays a mutation the model proposes twice instead of applying it again", async () => {
    const args = { ticket_id: `T-${crypto.randomUUID().slice(0, 8)}`, title: "db-1 disk full" };
    const seen: Decision[] = [];
    const model = scriptedAgentsModel((results, turn) => {
      seen.push(...(results as Decision[]));
      return turn < 2 ? [{ tool: "create_ticket", args }] : "done";
    });
    const run = fence.run(runId());

    const agent = new Agent({ name: "twice", model, tools: await fenceAgentTools(run) });
    await runAgent(agent, "Open a ticket.", { maxTurns: 5 });

    expect(seen.map((d) => d.decision)).toEqual(["applied", "replayed"]);
    expect((await run.status()).budget.mutations.used).toBe(1);
  });
});
