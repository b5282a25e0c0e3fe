/**
 * `toolfence/ai`: the fence's tools for the AI SDK (`ai` v7). Each tool's input schema is the
 * catalogue's JSON Schema (the one the fence enforces), and its `execute` proposes the call to
 * the fence. A refusal comes back to the model as the tool's result, with the reason and the
 * issues, so it can re-plan; it is never thrown.
 */
import { jsonSchema, type ToolSet, tool } from "ai";
import type { RunClient } from "./index.ts";
import { callKey } from "./intent.ts";
import type { ToolName } from "./types.ts";

/** What the model sees when the fence did not run the call. */
export interface FenceRefusal {
  /** Always true: the call did not apply. */
  refused: true;
  /** `block`, `retry`, `escalate` or `needs_approval`. */
  decision: string;
  /** The stable reason code. */
  reason: string;
  /** What happened. */
  detail?: string;
  /** For contract failures: what to fix. */
  issues?: unknown[];
}

/** Render any answer of the fence as what `execute` returns. */
export function forModel(outcome: Record<string, unknown>): unknown {
  const d = outcome.decision;
  if (d === "applied" || d === "replayed" || d === "cached") return outcome.result;
  const { decision, reason, detail, issues } = outcome as unknown as FenceRefusal;
  return { refused: true, decision, reason, detail, ...(issues ? { issues } : {}) };
}

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
