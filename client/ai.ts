/**
 * `toolfence/ai`: the fence's tools for the AI SDK (`ai` v7). Each tool's input schema is
 * the catalogue's JSON Schema, left unvalidated on the agent's side so that the fence, which
 * runs the contract, is the one judge; a refusal comes back to the model as the tool's
 * result (the problem document with its `issues`), so the model re-plans instead of the loop
 * ending on an exception.
 */
import { jsonSchema, type ToolSet, tool } from "ai";
import { type AdapterOptions, catalogueOf, proposeFor } from "./adapter.ts";
import type { FenceRun } from "./run.ts";

export type { AdapterOptions } from "./adapter.ts";

/** AI SDK tool definitions for every tool `run`'s key may call, executed through the fence. */
export async function fenceTools(run: FenceRun, options: AdapterOptions = {}): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const entry of await catalogueOf(run)) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<unknown>(entry.input_schema),
      execute: (args: unknown, { abortSignal }) =>
        proposeFor(run, entry, args, options, abortSignal),
    });
  }
  return tools;
}
