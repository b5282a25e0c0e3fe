/**
 * `toolfence/openai-agents`: the fence's tools as `@openai/agents` function tools. The
 * catalogue's JSON Schema is passed non-strict, so the fence, which runs the contract, is
 * the one judge; a refusal comes back to the model as the tool's output (the problem
 * document with its `issues`), so it re-plans instead of the run failing.
 *
 * Approvals: the fence decides `needs_approval` only when the call arrives, after the SDK
 * has decided its own approval. The adapter remembers the held intent, so when the model
 * proposes it again the SDK interrupts the run (`result.interruptions`) for the
 * application to approve once the operator has granted it at the fence.
 */
import { type FunctionTool, tool } from "@openai/agents";
import { type AdapterOptions, catalogueOf, derivedKey, proposeFor } from "./adapter.ts";
import type { FenceRun } from "./run.ts";

export type { AdapterOptions } from "./adapter.ts";

/**
 * The SDK's type of non-strict JSON Schema parameters. The catalogue's schema says
 * `additionalProperties: false`, which the type does not admit; the SDK passes it through
 * unchanged, and the fence refuses unknown keys either way.
 */
type AgentParameters = {
  type: "object";
  properties: Record<string, never>;
  required: never[];
  additionalProperties: true;
};

/** Function tools for every tool `run`'s key may call, executed through the fence. */
export async function fenceAgentTools(
  run: FenceRun,
  options: AdapterOptions = {},
): Promise<FunctionTool<unknown, AgentParameters>[]> {
  // Intents the fence held for approval, by derived key: their next proposal interrupts.
  const held = new Set<string>();
  const intentOf = (name: string, args: unknown) => derivedKey(run.id, name, args);
  return (await catalogueOf(run)).map((entry) =>
    tool({
      name: entry.name,
      description: entry.description,
      parameters: entry.input_schema as unknown as AgentParameters,
      strict: false,
      needsApproval: async (_context, args) => held.has(await intentOf(entry.name, args)),
      execute: async (args: unknown) => {
        const decision = await proposeFor(run, entry, args, options);
        const intent = await intentOf(entry.name, args);
        if (decision.decision === "needs_approval") held.add(intent);
        else held.delete(intent);
        return decision;
      },
    }),
  );
}
