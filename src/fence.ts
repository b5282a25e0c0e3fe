/**
 * Loading a fence: the contracts and policy a worker runs with, checked before it serves.
 */
import type { ToolContract } from "./core/contract.ts";
import { type Fence, loadFence } from "./core/policy.ts";

/**
 * Validate the policy against the contracts. A missing brake is a deploy bug, not a runtime
 * surprise: the worker's entry calls this at module load, so `wrangler dev` and `wrangler
 * deploy` fail loudly instead of serving an unfenced tool. `file` names the policy's source.
 */
export function startFence(
  contracts: readonly ToolContract[],
  source: unknown,
  file = "contracts/policy.json",
): Fence {
  const loaded = loadFence(source, contracts);
  if (!loaded.ok) {
    throw new Error(
      `toolfence refuses to start: ${file} is invalid\n  ${loaded.error.join("\n  ")}`,
    );
  }
  return loaded.value;
}
