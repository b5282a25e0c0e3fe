/**
 * Tenant-wide target claims inside their TargetClaims object (see there): deciding a claim in one
 * transaction, finding the claims past their lease that stand in its way, and settling one
 * once its run answered.
 */
import { refuse } from "../../core/reasons.ts";
import type { ClaimAnswer, TargetClaim } from "../protocol.ts";

/** An unconfirmed claim past its lease: its run must say whether it admitted the call. */
export type LapsedClaim = {
  tool: string;
  target: string;
  run_id: string;
  intent: string;
  tenant: string;
};

/** An unconfirmed claim past its lease at the time bound to `?`. */
const LAPSED = "confirmed = 0 AND lease_expires_at <= ?";

/** One intent's claim on a target: tool, target, run and intent bound in that order. */
const CLAIM_OF = "tool = ? AND target = ? AND run_id = ? AND intent = ?";

/** A claim's decision, or the lapsed claims to settle before it can be made. */
export type ClaimStep = ClaimAnswer | { kind: "ask"; lapsed: LapsedClaim[] };

/**
 * Decide claim `c` at `now`, inside a transaction: held (fresh, or this intent's own already),
 * refused at the cap, or first ask about the lapsed claims that fill the cap.
 */
export function decideClaim(sql: SqlStorage, c: TargetClaim, now: number): ClaimStep {
  // Every claim on the target, oldest first, each marked if it is this intent's own.
  const claims = sql
    .exec<LapsedClaim & { own: number; lapsed: number }>(
      `SELECT tool, target, run_id, intent, tenant, run_id = ? AND intent = ? AS own,
         ${LAPSED} AS lapsed
       FROM target_claim WHERE tool = ? AND target = ? ORDER BY claimed_at`,
      c.runId,
      c.intent,
      now,
      c.tool,
      c.target,
    )
    .toArray();
  if (claims.some((o) => o.own === 1)) return { kind: "held", fresh: false };
  if (claims.length >= c.max) {
    const lapsed = claims.filter((o) => o.lapsed === 1);
    if (lapsed.length > 0) return { kind: "ask", lapsed };
    const first = claims[0]?.run_id ?? "";
    const detail = `${c.tool} may run at most ${c.max} time(s) per ${c.arg} across this tenant's runs; ${c.arg} ${JSON.stringify(c.target)} was claimed by run ${first}.`;
    return { kind: "refuse", refusal: refuse("target_cap_exhausted", detail) };
  }
  sql.exec(
    `INSERT INTO target_claim (tool, target, run_id, intent, call_id, claimed_at, tenant,
       lease_expires_at, confirmed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
    c.tool,
    c.target,
    c.runId,
    c.intent,
    c.callId,
    now,
    c.tenant,
    now + c.leaseMs,
  );
  return { kind: "held", fresh: true };
}

/** Confirm a lapsed claim whose run admitted the call, or drop it; one settled before stays. */
export function settleClaim(sql: SqlStorage, claim: LapsedClaim, admitted: boolean): void {
  sql.exec(
    admitted
      ? `UPDATE target_claim SET confirmed = 1 WHERE ${CLAIM_OF} AND confirmed = 0`
      : `DELETE FROM target_claim WHERE ${CLAIM_OF} AND confirmed = 0`,
    claim.tool,
    claim.target,
    claim.run_id,
    claim.intent,
  );
}

/** Drop a fresh claim whose call the run refused; only the claiming call may drop it. */
export function releaseClaim(sql: SqlStorage, c: TargetClaim): void {
  sql.exec(
    `DELETE FROM target_claim WHERE ${CLAIM_OF} AND call_id = ?`,
    c.tool,
    c.target,
    c.runId,
    c.intent,
    c.callId,
  );
}
