/**
 * The tenant's last hour: calls and refusals per minute, and the most frequent refusal reasons.
 * Read from the tail of each recently active run's own audit (the object `GET
 * /v1/runs/{id}/audit` reads), bounded: the runs of the run list active in the last hour, at
 * most `ACTIVE_RUNS_READ` of them, and the last `ENTRIES_PER_RUN` entries of each.
 */
import { ledgerOf } from "../ledger/address.ts";
import type { AuditEntry, RunSummary } from "../ledger/protocol.ts";
import { type Bins, RankChart, StackedChart, stackBy, topCounts } from "./charts.tsx";
import { callsOf } from "./timeline.tsx";

/** Runs read for the last hour, those with the newest activity first. */
export const ACTIVE_RUNS_READ = 20;

/** Entries read from the end of each run's audit. */
export const ENTRIES_PER_RUN = 200;

/** Refusal reasons ranked. */
const TOP_REASONS = 5;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Decisions that refuse a call: the call did not apply and waits for nobody. */
const REFUSING = new Set(["block", "retry", "escalate"]);

/** One call as the tenant's charts count it. */
export interface CallSeen {
  /** When it was received (ms since the epoch). */
  at: number;
  /** The reason it was refused, or null when it was not. */
  refused: string | null;
}

/** The sixty whole minutes up to and including `now`'s. */
export function lastHour(now: number): Bins {
  return { start: Math.floor(now / MINUTE) * MINUTE - HOUR + MINUTE, width: MINUTE, count: 60 };
}

/**
 * One run's entries as calls: each once, by how it ended; an operator's act (it has an actor)
 * is not a call.
 */
export function callsSeen(entries: readonly AuditEntry[]): CallSeen[] {
  return callsOf(entries)
    .filter(([entry]) => entry.actor === null)
    .map(([entry, outcome]) => {
      const last = outcome ?? entry;
      const refused = REFUSING.has(last.decision) ? (last.reason ?? last.decision) : null;
      return { at: Date.parse(entry.at), refused };
    });
}

/** The last entries of a run's audit, or none when it cannot be read. */
async function tail(env: Env, tenant: string, runId: string): Promise<AuditEntry[]> {
  const ledger = ledgerOf(env, { tenant, runId });
  const head = await ledger.auditHead();
  if (head === null) return [];
  const page = await ledger.audit(Math.max(0, head.seq - ENTRIES_PER_RUN), ENTRIES_PER_RUN);
  return page?.kind === "entries" ? page.entries : [];
}

/** The calls of the tenant's runs active in the hour before `now`, within the bounds above. */
export async function recentCalls(
  env: Env,
  tenant: string,
  runs: readonly RunSummary[],
  now: number,
): Promise<CallSeen[]> {
  const since = lastHour(now).start;
  const active = runs
    .filter((r) => Date.parse(r.last_activity_at) >= since)
    .sort((a, b) => b.last_activity_at.localeCompare(a.last_activity_at))
    .slice(0, ACTIVE_RUNS_READ);
  const tails = await Promise.all(active.map((r) => tail(env, tenant, r.run_id)));
  return tails.flatMap(callsSeen).filter((c) => c.at >= since && c.at <= now);
}

const ACTIVITY_LOOK = {
  label: (s: string) => (s === "refused" ? "refused" : "not refused"),
  cls: (s: string) => (s === "refused" ? "d-block" : "d-applied"),
};

/** The tenant's last hour as two charts. */
export function TenantCharts(props: { calls: readonly CallSeen[]; now: number }) {
  const { calls, now } = props;
  const points = calls.map((c) => ({ at: c.at, key: c.refused === null ? "admitted" : "refused" }));
  const perMinute = stackBy(points, lastHour(now), ["admitted", "refused"]);
  const reasons = topCounts(
    calls.flatMap((c) => (c.refused === null ? [] : [c.refused])),
    TOP_REASONS,
  );
  return (
    <section class="charts panel" aria-label="The last hour">
      <StackedChart
        id="chart-per-minute"
        title="Calls per minute, the last hour"
        data={perMinute}
        look={ACTIVITY_LOOK}
      />
      {reasons.length === 0 ? (
        <p class="muted" id="chart-reasons">
          No refusals in the last hour.
        </p>
      ) : (
        <RankChart
          id="chart-reasons"
          title="Top refusal reasons, the last hour"
          rows={reasons}
          cls="d-block"
          heading={["Reason", "Refusals"]}
        />
      )}
    </section>
  );
}
