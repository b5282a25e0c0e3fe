/**
 * Tenant-wide target claims on the call path: claimed in the target's shard object while the
 * run decides, released if the run refuses (src/http/calls.ts waits for both).
 */
import type { Charge } from "../core/admission.ts";
import type { GatedCall } from "../core/gate.ts";
import type { TargetRule } from "../core/policy.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import type { ledgerOf } from "../ledger/address.ts";
import type {
  BudgetView,
  LedgerAnswer,
  LedgerProposal,
  RunRef,
  TargetClaim,
  Withdrawal,
} from "../ledger/protocol.ts";
import { mutationKey } from "../ledger/run/keys.ts";
import { claimObjectName } from "../ledger/TargetClaims.ts";

/**
 * A claim this call made. A call the run admitted leaves it as it is: past its lease, the
 * claim object asks the run about it if another claim needs to know (TargetClaims).
 */
export interface FreshClaim {
  /** Give it back: the run refused the call (or asked a person first). */
  release: () => Promise<void>;
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
 * Claim the call's target in the TargetClaims object of the target's shard (tenant + tool +
 * shard) when a tenant-wide per-target rule binds it: no object is shared by all of a tenant's
 * calls.
 * The claim is asked beside the run's decision, and the tool is reached only when both let
 * it: see TargetClaims for why this fails closed. A call no such rule binds holds nothing,
 * at once.
 */
export function holdTarget(
  env: Env,
  ref: RunRef,
  call: GatedCall,
  rule: TargetRule | null,
  target: string | null,
  callId: string,
  leaseMs: number,
): TargetHold | Promise<TargetHold> {
  const claim = claimOf(ref, call, rule, target, callId, leaseMs);
  return claim === null ? NOTHING_HELD : claimTarget(env, claim);
}

async function claimTarget(env: Env, claim: TargetClaim): Promise<TargetHold> {
  const tenant = env.TARGET_CLAIMS.getByName(claimObjectName(claim));
  const held = await tenant.claim(claim);
  if (held.kind === "refuse") return { refusal: held.refusal, fresh: null };
  if (!held.fresh) return NOTHING_HELD;
  const fresh: FreshClaim = {
    release: async function releaseClaim() {
      await tenant.release(claim);
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

/** Both answers, or a call the run admitted and took back: its claim was refused. */
export type ClaimAndDecision =
  | { hold: TargetHold; answer: LedgerAnswer }
  | { withdrawn: Refusal; budget: BudgetView };

/**
 * Wait for the target's claim and the run's decision, asked at the same time: the tool is
 * reached only when both let it, so the claim adds no serial step. A call the run admitted
 * whose claim was refused is taken back. When either fails, what the other did is undone (a
 * fresh claim released; an admitted call taken back) before the error goes on.
 */
export async function claimWhileDeciding(
  ledger: Pick<ReturnType<typeof ledgerOf>, "withdraw">,
  ref: RunRef,
  claiming: TargetHold | Promise<TargetHold>,
  deciding: Promise<LedgerAnswer>,
  { proposal, started }: { proposal: LedgerProposal; started: number },
): Promise<ClaimAndDecision> {
  if (!(claiming instanceof Promise)) return { hold: claiming, answer: await deciding };
  const [held, decided] = await Promise.allSettled([claiming, deciding]);
  if (decided.status === "rejected") {
    if (held.status === "fulfilled") await held.value.fresh?.release();
    throw decided.reason;
  }
  const answer = decided.value;
  if (held.status === "rejected") {
    if (answer.kind === "admit") {
      const failed = refuse("internal_error", "The target's claim could not be made.");
      await ledger.withdraw(ref, withdrawal(proposal, answer.charge, failed, started));
    }
    throw held.reason;
  }
  const hold = held.value;
  if (hold.refusal === null || answer.kind !== "admit") return { hold, answer };
  // The run admitted a call whose target another run holds: the run takes it back.
  const withdrawn = withdrawal(proposal, answer.charge, hold.refusal, started);
  return { withdrawn: hold.refusal, budget: await ledger.withdraw(ref, withdrawn) };
}

/** Taking back the admitted call `p`, which must not run because of `refusal`. */
function withdrawal(
  p: LedgerProposal,
  charge: Charge,
  refusal: Refusal,
  started: number,
): Withdrawal {
  return {
    callId: p.callId,
    key: mutationKey(p),
    target: p.target,
    charge,
    refusal,
    durationMs: Date.now() - started,
  };
}
