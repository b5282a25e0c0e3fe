/**
 * Tenant-wide target claims on the call path: claimed in the target's shard object before the
 * run decides, released if the run refuses.
 */
import type { GatedCall } from "../core/gate.ts";
import type { TargetRule } from "../core/policy.ts";
import type { Refusal } from "../core/reasons.ts";
import type { RunRef, TargetClaim } from "../ledger/protocol.ts";
import { claimObjectName } from "../ledger/TenantLedger.ts";

/** A claim this call made, which the run's decision settles. */
export interface FreshClaim {
  /** Give it back: the run refused the call (or asked a person first). */
  release: () => Promise<void>;
  /** Confirm it: the run admitted the call. */
  confirm: () => Promise<void>;
}

/** A call's hold on its tenant-wide target: refused, or held until the run decides. */
export interface TargetHold {
  /** Why the tenant refused the claim, or null when it is held (or none was needed). */
  refusal: Refusal | null;
  /** The claim this call made, or null (none needed, refused, or held by this intent before). */
  fresh: FreshClaim | null;
}

const NOTHING_HELD: TargetHold = { refusal: null, fresh: null };

/**
 * Claim the call's target in the TenantLedger of the target's shard (tenant + tool + shard)
 * when a tenant-wide per-target rule binds it: no object is shared by all of a tenant's calls.
 * The claim comes before the run decides and is released if the run refuses: see TenantLedger
 * for why this order fails closed.
 */
export async function holdTarget(
  env: Env,
  ref: RunRef,
  call: GatedCall,
  rule: TargetRule | null,
  target: string | null,
  callId: string,
  leaseMs: number,
): Promise<TargetHold> {
  const claim = claimOf(ref, call, rule, target, callId, leaseMs);
  if (claim === null) return NOTHING_HELD;
  const tenant = env.TENANT_LEDGER.getByName(claimObjectName(claim));
  const held = await tenant.claim(claim);
  if (held.kind === "refuse") return { refusal: held.refusal, fresh: null };
  if (!held.fresh) return NOTHING_HELD;
  const fresh: FreshClaim = {
    release: async function releaseClaim() {
      await tenant.release(claim);
    },
    confirm: async function confirmClaim() {
      await tenant.confirm(claim);
    },
  };
  return { refusal: null, fresh };
}

function claimOf(
  ref: RunRef,
  call: GatedCall,
  rule: TargetRule | null,
  target: string | null,
  callId: string,
  leaseMs: number,
): TargetClaim | null {
  if (rule === null || rule.scope !== "tenant" || target === null) return null;
  return {
    tool: call.contract.name,
    arg: rule.arg,
    target,
    max: rule.max,
    runId: ref.runId,
    intent: call.key ?? callId,
    callId,
    tenant: ref.tenant,
    leaseMs,
  };
}
