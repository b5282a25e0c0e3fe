/**
 * An in-memory run for replay: the same admission and caps as the ledger, with no storage.
 */
import {
  type Admission,
  admit,
  type CallCaps,
  type Charge,
  type KeyState,
  type RunState,
  UNCAPPED,
} from "./admission.ts";
import type { GatedCall } from "./gate.ts";
import type { RunLimits } from "./limits.ts";
import { type Fence, type TargetRule, targetOf, targetRuleOf } from "./policy.ts";
import { type Refusal, refuse } from "./reasons.ts";

/**
 * An in-memory model of one run's ledger, for replay: the same `admit` the RunLedger
 * applies, over counters kept in maps instead of SQLite. Tenant-wide target claims are
 * modelled within the run only: claims other runs of the tenant made are not in its audit.
 */
export interface SimulatedRun {
  /** Counters and brakes, as the RunLedger's row holds them. */
  state: RunState;
  /** The run's effective limits. */
  limits: RunLimits;
  /** Idempotency keys by key. */
  keys: Map<string, KeyState>;
  /** Calls charged per tool. */
  toolUse: Map<string, number>;
  /** Calls charged per tool and target (`tool\ntarget`). */
  targetUse: Map<string, number>;
  /** Intents holding a tenant-wide claim per tool and target (`tool\ntarget`). */
  claims: Map<string, Set<string>>;
}

/** A fresh run created at `createdAt` with `limits`. */
export function simulatedRun(limits: RunLimits, createdAt: number): SimulatedRun {
  return {
    state: {
      haltedAt: null,
      deadlineAt: createdAt + limits.deadline_ms,
      mutationsUsed: 0,
      paidUsed: 0,
      maxMutations: limits.max_mutations,
      maxPaidCalls: limits.max_paid_calls,
      allowedTools: limits.allowed_tools,
    },
    limits,
    keys: new Map(),
    toolUse: new Map(),
    targetUse: new Map(),
    claims: new Map(),
  };
}

/** When and how a simulated call is decided. */
export interface SimulatedAt {
  /** Epoch ms of the recorded decision. */
  now: number;
  /** The recorded call id (the intent of a call without a key). */
  callId: string;
  /** How the call settles once admitted: its key is `done` or `retryable`. */
  settle: SimulatedSettle;
  /** Served from the cache when recorded: it never reached the tool, so it is free and uncapped. */
  cached: boolean;
}

/** How a simulated call settles once admitted: its key is `done` or `retryable`. */
export type SimulatedSettle = "done" | "retryable";

/**
 * Decide one gated call as the call path would: the tenant-wide claim first (released
 * if the run refuses), then the run's `admit`; an admitted call is charged and its key
 * settled at once with `settle` (replay never runs a tool).
 */
export function decide(
  sim: SimulatedRun,
  fence: Fence,
  call: GatedCall,
  at: SimulatedAt,
): Admission {
  const tool = call.contract.name;
  const rule = targetRuleOf(fence, tool);
  const target = targetOf(rule, call.args);
  const slot = `${tool}\n${target ?? ""}`;
  const key = call.contract.effect === "mutate" ? call.key : null;
  const intent = key ?? at.callId;
  const claim =
    rule?.scope === "tenant" && target !== null ? claimIn(sim, slot, intent, rule.max) : "none";
  if (claim === "refused" && rule !== null && target !== null) {
    return { kind: "refuse", refusal: claimRefused(tool, rule.arg, target, rule.max) };
  }
  const caps = at.cached ? UNCAPPED : capsOf(sim, tool, rule, target);
  const stored = key === null ? null : (sim.keys.get(key) ?? null);
  const { effect } = call.contract;
  const paid = call.contract.paid && !at.cached;
  const proposal = { tool, effect, paid, key, fingerprint: call.fingerprint, now: at.now };
  const decision = admit(sim.state, stored, proposal, caps);
  if (decision.kind === "refuse" && claim === "fresh") sim.claims.get(slot)?.delete(intent);
  if (decision.kind === "admit") {
    const counted = at.cached ? { ...decision.charge, calls: 0 } : decision.charge;
    charge(sim, counted, tool, target === null ? null : slot);
    if (key !== null) {
      const { fingerprint } = call;
      sim.keys.set(key, {
        fingerprint,
        phase: at.settle,
        leaseExpiresAt: at.now,
        callId: at.callId,
      });
    }
  }
  return decision;
}

/** The caps binding a call that reaches its tool, as the RunLedger reads them. */
function capsOf(
  sim: SimulatedRun,
  tool: string,
  rule: TargetRule | null,
  target: string | null,
): CallCaps {
  const toolMax = sim.limits.tool_caps[tool];
  const slot = `${tool}\n${target ?? ""}`;
  return {
    tool: toolMax === undefined ? null : { used: sim.toolUse.get(tool) ?? 0, max: toolMax },
    target:
      rule === null || target === null
        ? null
        : { used: sim.targetUse.get(slot) ?? 0, max: rule.max, arg: rule.arg, value: target },
  };
}

/** The tenant-wide claim, as TargetClaims.claim makes it. */
function claimIn(
  sim: SimulatedRun,
  slot: string,
  intent: string,
  max: number,
): "fresh" | "held" | "refused" {
  const holders = sim.claims.get(slot) ?? new Set<string>();
  if (holders.has(intent)) return "held";
  if (holders.size >= max) return "refused";
  sim.claims.set(slot, holders.add(intent));
  return "fresh";
}

function charge(sim: SimulatedRun, c: Charge, tool: string, slot: string | null): void {
  sim.state.mutationsUsed += c.mutations;
  sim.state.paidUsed += c.paid;
  if (c.calls === 0) return;
  sim.toolUse.set(tool, (sim.toolUse.get(tool) ?? 0) + c.calls);
  if (slot !== null) sim.targetUse.set(slot, (sim.targetUse.get(slot) ?? 0) + c.calls);
}

function claimRefused(tool: string, arg: string, target: string, max: number): Refusal {
  return refuse(
    "target_cap_exhausted",
    `${tool} may run at most ${max} time(s) per ${arg} across this tenant's runs; ${arg} ${JSON.stringify(target)} was claimed earlier in this run.`,
  );
}
