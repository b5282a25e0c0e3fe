import type { ToolContract } from "../src/core/contract.ts";
import { noop } from "./noop.ts";
import policy from "./policy.json" with { type: "json" };

/**
 * Every tool this fence knows, by name: a tool not listed here does not exist. Add yours
 * beside `noop` (docs/contracts.md); each keeps its schemas' types, so typed clients infer a
 * tool's arguments and result from it.
 */
export const TOOLS = {
  noop,
} as const;

/** The same contracts as a list, for the fence. */
export const CONTRACTS: readonly ToolContract[] = Object.values(TOOLS);

/** The policy file as written; validated when the worker module loads. */
export const POLICY_SOURCE: unknown = policy;
