/**
 * `toolfence/openai-agents`: the fence's tools as `@openai/agents` function tools. Each tool's
 * parameters are the catalogue's JSON Schema and its `execute` proposes the call to the fence;
 * a refusal is returned to the model as the tool's output, never thrown. A call the fence holds
 * for a human (`needs_approval`) is answered as pending; when the model proposes the same call
 * again, the tool's `needsApproval` turns it into the SDK's own interruption, so the agent host
 * asks its user before the call is re-proposed (and the fence still applies it only once an
 * operator approved it there).
 */
import { type FunctionTool, tool } from "@openai/agents";
import type { RunClient } from "./index.ts";
import { callKey } from "./intent.ts";
import { forModel } from "./refusal.ts";
import type { ToolName } from "./types.ts";

/** Function tools for every tool the run's key may use. */
export async function fenceAgentTools(run: RunClient): Promise<FunctionTool[]> {
  const { tools } = await run.tools();
  // Calls the fence answered `needs_approval`, by their key.
  const held = new Set<string>();
  return tools.map((t) =>
    tool({
      name: t.name,
      description: t.description,
      parameters: t.input_schema as never,
      strict: false,
      needsApproval: async (_ctx, args) => held.has(await callKey(run.id, t.name, args)),
      execute: async (args: unknown) => {
        const key = await callKey(run.id, t.name, args);
        const outcome = (await run.call(t.name as ToolName, args as never, {
          key: t.effect === "mutate" ? key : undefined,
        })) as unknown as Record<string, unknown>;
        if (outcome.decision === "needs_approval") held.add(key);
        else held.delete(key);
        return JSON.stringify(forModel(outcome));
      },
    }),
  ) as FunctionTool[];
}
