import { CONTRACTS, POLICY_SOURCE } from "../contracts/index.ts";
import { policyVersionOf } from "./core/approval.ts";
import { type Fence, loadFence } from "./core/policy.ts";

/**
 * Validate the policy and contracts. A missing brake is a deploy bug, not a runtime
 * surprise: the caller throws at module load, so `wrangler dev` and `wrangler deploy`
 * fail loudly instead of serving an unfenced tool.
 */
export function startFence(source: unknown): Fence {
  const loaded = loadFence(source, CONTRACTS);
  if (!loaded.ok) {
    throw new Error(
      `toolfence refuses to start: contracts/policy.json is invalid\n  ${loaded.error.join("\n  ")}`,
    );
  }
  return loaded.value;
}

/** The contracts and policy this worker runs with. */
export const FENCE: Fence = startFence(POLICY_SOURCE);

let version: string | null = null;

/**
 * The running policy's version (SHA-256 of its RFC 8785 form), which an approval's grant is
 * bound to. Computed once per isolate; the string is kept, not the promise, so no request
 * awaits another's I/O.
 */
export async function policyVersion(): Promise<string> {
  version ??= await policyVersionOf(FENCE.policy);
  return version;
}
