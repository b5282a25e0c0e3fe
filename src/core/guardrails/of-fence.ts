/**
 * The result rules one tool runs with, from the built-in defaults, the policy's `results`, the
 * contract's `results` and the policy's `tools.<name>.results`, each over the one before.
 */

import { canonicalize } from "../canonical.ts";
import type { ToolContract } from "../contract.ts";
import type { Fence } from "../policy.ts";
import { DETECTORS_VERSION } from "./detectors.ts";
import { type ResolvedRules, resolveRules } from "./rules.ts";

interface Resolved {
  rules: ResolvedRules;
  version: string;
}

/** Per fence, per tool: a fence's rules never change once it is loaded. */
const resolved = new WeakMap<Fence, Map<string, Resolved>>();

function resolvedOf(fence: Fence, contract: ToolContract): Resolved {
  let tools = resolved.get(fence);
  if (tools === undefined) {
    tools = new Map();
    resolved.set(fence, tools);
  }
  const known = tools.get(contract.name);
  if (known !== undefined) return known;
  const rules = resolveRules([
    { source: "policy", rules: fence.policy.results },
    { source: "contract", rules: contract.results },
    { source: "policy.tools", rules: fence.policy.tools[contract.name]?.results },
  ]);
  // What the rules do, without where they were set, and what they find with: the parts a
  // cached result depends on.
  const acting = Object.fromEntries(
    Object.entries(rules).map(([name, r]) => [name, { ...r, source: undefined }]),
  );
  const entry = { rules, version: canonicalize({ ...acting, detectors: DETECTORS_VERSION }) };
  tools.set(contract.name, entry);
  return entry;
}

/** The rules `contract`'s answers pass under `fence`. */
export function resultRulesOf(fence: Fence, contract: ToolContract): ResolvedRules {
  return resolvedOf(fence, contract).rules;
}

/**
 * The rules as a version folded into the cache key: a result is stored as its rules left it,
 * so a change of rules must not serve it again.
 */
export function resultRulesVersion(fence: Fence, contract: ToolContract): string {
  return resolvedOf(fence, contract).version;
}
