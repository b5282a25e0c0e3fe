import * as v from "valibot";
import type { ToolContract } from "./contract.ts";
import { err, ok, type Result } from "./result.ts";

const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The brakes of every run, from `contracts/policy.json`. */
export const PolicySchema = v.strictObject({
  allowed_tools: v.pipe(v.array(v.string()), v.minLength(1)),
  max_mutations: v.pipe(v.number(), v.integer(), v.minValue(0)),
  max_paid_calls: v.pipe(v.number(), v.integer(), v.minValue(0)),
  call_timeout_cap_ms: PositiveInt,
  run_deadline_ms: PositiveInt,
  idempotency_retention_ms: v.pipe(PositiveInt, v.minValue(60_000)),
});

/** A validated policy. */
export type Policy = v.InferOutput<typeof PolicySchema>;

/** The contracts and policy a worker runs with, checked together. */
export interface Fence {
  /** Validated policy. */
  policy: Policy;
  /** Contracts by exact tool name. */
  tools: ReadonlyMap<string, ToolContract>;
}

/**
 * Check the policy against its schema and the contracts it names. Returns every
 * problem, each with the path of the offending value, so a reviewer can fix the file
 * in one pass.
 */
export function loadFence(
  source: unknown,
  contracts: readonly ToolContract[],
): Result<Fence, string[]> {
  const parsed = v.safeParse(PolicySchema, source);
  if (!parsed.success) {
    return err(parsed.issues.map((i) => `policy.${v.getDotPath(i) ?? ""}: ${i.message}`));
  }
  const tools = new Map<string, ToolContract>();
  const problems: string[] = [];
  for (const c of contracts) {
    if (tools.has(c.name)) problems.push(`contracts: tool ${c.name} is declared twice`);
    if (c.effect === "mutate" && c.cacheTtlSeconds !== 0) {
      problems.push(`contracts.${c.name}.cacheTtlSeconds: a mutation is never cached`);
    }
    tools.set(c.name, c);
  }
  parsed.output.allowed_tools.forEach((name, i) => {
    if (!tools.has(name)) problems.push(`policy.allowed_tools.${i}: no contract named "${name}"`);
  });
  return problems.length > 0 ? err(problems) : ok({ policy: parsed.output, tools });
}
