/**
 * What needs a person across the tenant's runs: pending approvals, open escalations, runs
 * near their budget or deadline, halted runs. Read from the tenant's run index and each
 * run's own `RunLedger.summary` (the object `GET /v1/runs/{id}` reads), once per request,
 * for the runs page and the count every page's header shows.
 */
import { ledgerOf, tenantIndexOf } from "../ledger/address.ts";
import type { RunSummary } from "../ledger/protocol.ts";

/** How many of the most recently created runs are read (one object call each). */
export const RUN_LIST_SIZE = 100;

/** A budget counter this far used, or a deadline this little left, is near its limit. */
export const NEAR_LIMIT = 0.8;

/** The tenant's runs that need a person, counted by why. */
export interface Attention {
  /** Approvals waiting for a decision, across the runs read. */
  approvals: number;
  /** Escalated calls nobody has resolved yet. */
  escalations: number;
  /** Open runs near their budget or deadline. */
  nearLimit: number;
  /** Halted runs. */
  halted: number;
}

/** The tenant's most recent runs with their status, newest activity first. */
export async function runsOf(env: Env, tenant: string): Promise<RunSummary[]> {
  const indexed = await tenantIndexOf(env, tenant).runs(RUN_LIST_SIZE);
  const summaries: (RunSummary | null)[] = await Promise.all(
    indexed.map((r) => ledgerOf(env, { tenant, runId: r.run_id }).summary()),
  );
  return summaries
    .filter((s) => s !== null)
    .sort((a, b) => b.last_activity_at.localeCompare(a.last_activity_at));
}

/**
 * Whether an open run has used `NEAR_LIMIT` of a budget counter, or has that share of its
 * time to its deadline behind it, as of `now`.
 */
export function nearLimit(run: RunSummary, now: number): boolean {
  if (run.status !== "open") return false;
  const used = (c: { used: number; limit: number }) =>
    c.limit > 0 && c.used >= c.limit * NEAR_LIMIT;
  const start = Date.parse(run.created_at);
  const span = Date.parse(run.deadline_at) - start;
  const late = span > 0 && now - start >= span * NEAR_LIMIT;
  return used(run.budget.mutations) || used(run.budget.paid_calls) || late;
}

/** Whether a run needs a person, as of `now`. */
export function needsAPerson(run: RunSummary, now: number): boolean {
  return (
    run.pending_approvals > 0 ||
    run.open_escalations > 0 ||
    run.status === "halted" ||
    nearLimit(run, now)
  );
}

/** The counts over `runs`, as of `now`. */
export function attentionOf(runs: readonly RunSummary[], now: number): Attention {
  const count = (ok: (r: RunSummary) => boolean) => runs.filter(ok).length;
  return {
    approvals: runs.reduce((n, r) => n + r.pending_approvals, 0),
    escalations: runs.reduce((n, r) => n + r.open_escalations, 0),
    nearLimit: count((r) => nearLimit(r, now)),
    halted: count((r) => r.status === "halted"),
  };
}

/** The tenant's runs, read at most once however often asked. */
export function tenantRuns(env: Env, tenant: string): () => Promise<RunSummary[]> {
  let read: Promise<RunSummary[]> | null = null;
  return () => {
    read ??= runsOf(env, tenant);
    return read;
  };
}
