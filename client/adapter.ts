/**
 * What both framework adapters share: the catalogue a run's key may call, and the one step
 * a model's tool call takes through the fence. A refusal is returned to the model as data it
 * can re-plan from, never thrown.
 */
import type { FenceRun } from "./run.ts";
import type { Decision } from "./wire.ts";

/** One tool of the catalogue (`GET /v1/tools`), as the adapters need it. */
export interface CatalogueTool {
  /** Exact tool name. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** `mutate` tools get an idempotency key per intent. */
  effect: "read" | "mutate";
  /** JSON Schema (draft 2020-12) of the arguments, from the same schema the gate runs. */
  input_schema: Record<string, unknown>;
}

/** How an adapter turns a model's tool call into a fence call. */
export interface AdapterOptions {
  /**
   * The idempotency key of a mutation. Default: derived from the run, the tool and the
   * canonical arguments, so the same intent proposed twice is applied once.
   */
  key?: (tool: string, args: unknown) => string | Promise<string>;
}

/** The tools `run`'s key may call, with their JSON Schemas. */
export async function catalogueOf(run: FenceRun): Promise<CatalogueTool[]> {
  const answer = (await run.tools()) as { tools: CatalogueTool[] };
  return answer.tools;
}

/** JSON with object keys sorted, so equal arguments always give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The default key of a mutation: `tf-intent-` and the SHA-256 of run, tool and arguments. */
export async function derivedKey(runId: string, tool: string, args: unknown): Promise<string> {
  const text = `${runId}\n${tool}\n${canonicalJson(args)}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `tf-intent-${hex}`;
}

/** Propose a model's call of `tool` through the fence; every answer is returned as data. */
export async function proposeFor(
  run: FenceRun,
  tool: CatalogueTool,
  args: unknown,
  options: AdapterOptions,
  signal?: AbortSignal,
): Promise<Decision> {
  const key =
    tool.effect === "mutate"
      ? await (options.key?.(tool.name, args) ?? derivedKey(run.id, tool.name, args))
      : undefined;
  return run.propose(tool.name, args, { key, signal });
}
