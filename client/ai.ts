/**
 * `toolfence/ai`: the fence's tools for the AI SDK (`ai` v7). Each tool's input schema is the
 * catalogue's JSON Schema (the one the fence enforces), and its `execute` proposes the call to
 * the fence. A refusal comes back to the model as the tool's result, with the reason and the
 * issues, so it can re-plan; it is never thrown.
 */
import { jsonSchema, type ToolSet, tool } from "ai";
import type { RunClient } from "./index.ts";
import { callKey } from "./intent.ts";
import { forModel } from "./refusal.ts";
import type { ToolName } from "./types.ts";

export { type FenceRefusal, forModel } from "./refusal.ts";

/** AI SDK tools for every tool the run's key may use. */
export async function fenceTools(run: RunClient): Promise<ToolSet> {
  const { tools } = await run.tools();
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.input_schema as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown) => {
        const key = t.effect === "mutate" ? await callKey(run.id, t.name, args) : undefined;
        const outcome = await run.call(t.name as ToolName, args as never, { key });
        return forModel(outcome as unknown as Record<string, unknown>);
      },
    });
  }
  return set;
}
