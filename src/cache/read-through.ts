/**
 * How a gated read goes with respect to the result cache: served from a tier, joined to a
 * call already in flight, or led to the tool (and its result stored after the answer).
 */
import { cacheKey } from "../core/canonical.ts";
import type { ToolContract } from "../core/contract.ts";
import type { Execution } from "../execute/execute.ts";
import type { CacheStatus } from "../ledger/protocol.ts";
import { type Flight, flightOf, takeOff } from "./flights.ts";
import { lookup, type ResultTiers, store } from "./tiers.ts";

/** A call that passed the gate, as the cache sees it. */
export interface CachedRead {
  /** Where results are looked up and stored. */
  tiers: ResultTiers;
  /** The tool's contract. */
  contract: ToolContract;
  /** The validated output of the input schema (defaults applied). */
  args: unknown;
  /** Tenant of the caller; part of the key unless the contract shares results. */
  tenant: string;
  /** The caller sent `Cache-Control: no-cache`. */
  noCache: boolean;
  /**
   * The tool's cache epoch (for an MCP tool, changed by the drift check whenever what its
   * server lists changes), folded into the key with the version; null or absent for none.
   */
  epoch?: string | null;
  /**
   * The tool's result rules as a version: a result is stored as its rules left it, so a
   * change of rules misses the results stored before it. Absent for none.
   */
  rules?: string;
  /** Runs work the answer does not wait for (`waitUntil`). */
  defer: (work: Promise<unknown>) => void;
}

/** The leader's duty: hand its execution over, once, whatever happened. */
export interface FlightLeader {
  /** Give the execution to joiners and store it if it passed; null when it never ran. */
  land(execution: Execution | null): void;
}

/** How a call goes with respect to the cache. */
export type CacheRoute =
  /** Not cacheable: a mutation (`cache` null) or a read with a TTL of 0 (`bypass`). */
  | { kind: "uncached"; key: null; cache: "bypass" | null }
  /** Answered with no backend query of its own: from a tier, or by joining a flight. */
  | { kind: "served"; key: string; cache: CacheStatus; execution: Execution }
  /** The caller runs the tool, charged, and must `land` what it got. */
  | { kind: "leader"; key: string; cache: "miss" | "bypass"; leader: FlightLeader };

/** RFC 9111 §5.2.1.4: whether a request's Cache-Control carries `no-cache`. */
export function asksNoCache(cacheControl: string | undefined): boolean {
  // An untrusted header: only a short one is read at all.
  if (cacheControl === undefined || cacheControl.length > 256) return false;
  return cacheControl
    .split(",")
    .some((d) => d.trim().split("=")[0]?.trim().toLowerCase() === "no-cache");
}

/**
 * Route a gated call through the cache: a tier's entry, else the identical call already
 * in flight in this isolate, else the caller leads (runs the tool and lands its result).
 */
export async function routeRead(read: CachedRead): Promise<CacheRoute> {
  const { contract, tenant } = read;
  if (contract.effect !== "read") return { kind: "uncached", key: null, cache: null };
  if (contract.cacheTtlSeconds <= 0) return { kind: "uncached", key: null, cache: "bypass" };
  const epoch = read.epoch == null ? contract.version : `${contract.version}@${read.epoch}`;
  const key = await cacheKey({
    tool: contract.name,
    version: read.rules === undefined ? epoch : `${epoch}#${read.rules}`,
    args: read.args,
    tenant: contract.sharedCache ? null : tenant,
  });
  // A fresh answer was asked for: no lookup and no joining, but the result refreshes the tiers.
  if (read.noCache)
    return { kind: "leader", key, cache: "bypass", leader: leaderOf(read, key, null) };
  for (;;) {
    const flight = flightOf(key);
    if (flight !== null) {
      const landing = await flight;
      if (landing !== null) {
        return {
          kind: "served",
          key,
          cache: landing.ok ? "hit-memory" : "miss",
          execution: landing,
        };
      }
      continue;
    }
    const hit = await lookup(read.tiers, contract, key, read.defer);
    if (hit !== null) {
      const { result, findings } = hit;
      // The findings the rules made when the result was stored: a hit carries its `guard` too.
      const execution: Execution =
        findings === undefined ? { ok: true, result } : { ok: true, result, findings };
      return { kind: "served", key, cache: hit.tier, execution };
    }
    // The lookup awaited: an identical call may have taken off meanwhile, so look again.
    if (flightOf(key) === null) {
      return { kind: "leader", key, cache: "miss", leader: leaderOf(read, key, takeOff(key)) };
    }
  }
}

function leaderOf(read: CachedRead, key: string, flight: Flight | null): FlightLeader {
  let landed = false;
  return {
    land(execution) {
      if (landed) return;
      landed = true;
      const stored = execution?.ok
        ? store(read.tiers, read.contract, key, execution.result, execution.findings)
        : Promise.resolve(false);
      read.defer(stored);
      flight?.land(execution, stored);
    },
  };
}
