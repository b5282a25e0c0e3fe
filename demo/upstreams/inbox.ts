/**
 * What the demo upstreams received per run, checked against their contracts: a spy that
 * proves nothing invalid reached a tool.
 */
import * as v from "valibot";
import { TOOLS } from "../contracts/index.ts";

/** What the demo upstreams received for one run, checked against the tools' contracts. */
export interface InboxCount {
  /** Requests received. */
  received: number;
  /** Requests whose arguments broke the tool's input contract: the fence let them through. */
  violations: number;
  /** Mutation requests received, per forwarded Idempotency-Key. */
  keys: Record<string, number>;
}

/** Runs remembered; the oldest is forgotten first, so the demo's memory stays bounded. */
const MAX_RUNS = 1_024;

const counts = new Map<string, InboxCount>();

function countOf(run: string): InboxCount {
  const existing = counts.get(run);
  if (existing !== undefined) return existing;
  if (counts.size >= MAX_RUNS) {
    const oldest = counts.keys().next().value;
    if (oldest !== undefined) counts.delete(oldest);
  }
  const fresh: InboxCount = { received: 0, violations: 0, keys: {} };
  counts.set(run, fresh);
  return fresh;
}

/**
 * Check what reached an upstream against the tool's input contract, as a careful upstream
 * would, and count it for the run. Returns whether the arguments keep the contract.
 * In-memory and per isolate: an observation for tests and local runs, not a ledger.
 */
export function receive(run: string, tool: string, args: unknown, key: string | null): boolean {
  const count = countOf(run);
  count.received++;
  const contract = Object.hasOwn(TOOLS, tool) ? TOOLS[tool as keyof typeof TOOLS] : undefined;
  const kept = contract !== undefined && !Array.isArray(args) && v.is(contract.input, args);
  if (!kept) count.violations++;
  if (contract?.effect === "mutate" && key !== null) {
    count.keys[key] = (count.keys[key] ?? 0) + 1;
  }
  return kept;
}

/** What was received for a run so far. */
export function inboxOf(run: string): InboxCount {
  return counts.get(run) ?? { received: 0, violations: 0, keys: {} };
}
