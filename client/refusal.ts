/**
 * How a framework adapter hands the fence's answer to the model: the result of a call that
 * ran, or the refusal with its reason and issues so the model can re-plan. Shared by every
 * adapter, so none of them imports another adapter's SDK.
 */

/** What the model sees when the fence did not run the call. */
export interface FenceRefusal {
  /** Always true: the call did not apply. */
  refused: true;
  /** `block`, `retry`, `escalate` or `needs_approval`. */
  decision: string;
  /** The stable reason code. */
  reason: string;
  /** What happened. */
  detail?: string;
  /** For contract failures: what to fix. */
  issues?: unknown[];
}

/** Render any answer of the fence as what a tool's `execute` returns. */
export function forModel(outcome: Record<string, unknown>): unknown {
  const d = outcome.decision;
  if (d === "applied" || d === "replayed" || d === "cached") return outcome.result;
  const { decision, reason, detail, issues } = outcome as unknown as FenceRefusal;
  return { refused: true, decision, reason, detail, ...(issues ? { issues } : {}) };
}
