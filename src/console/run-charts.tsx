/**
 * A run's charts, from the page of audit entries its page already read: its calls over time
 * stacked by how each ended, and its two budget counters' burn against their limits (each
 * entry records the budget after it).
 */
import { AuditDecisionSchema } from "../core/shapes/audit.ts";
import type { RunSummary } from "../ledger/protocol.ts";
import {
  type Bins,
  BurnChart,
  binsOver,
  burnOver,
  type SeriesLook,
  StackedChart,
  stackBy,
} from "./charts.tsx";
import type { TimelineEntry } from "./timeline.tsx";

/** Decisions are named and coloured as their badges are. */
export const DECISION_LOOK: SeriesLook = { label: (d) => d, cls: (d) => `d-${d}` };

/** Each call once, at when it was received, by how it ended (its outcome, else its entry). */
export function decisionPoints(items: readonly TimelineEntry[]): { at: number; key: string }[] {
  return items.map(({ entry, outcome }) => ({
    at: Date.parse(entry.at),
    key: (outcome ?? entry).decision,
  }));
}

/** The bins a run's charts share: from its first entry on the page to its last. */
export function runBins(items: readonly TimelineEntry[]): Bins | null {
  const times = items.flatMap(({ entry, outcome }) =>
    [entry, outcome].flatMap((e) => (e === null ? [] : [Date.parse(e.at)])),
  );
  if (times.length === 0) return null;
  return binsOver(Math.min(...times), Math.max(...times));
}

/** The budget after each entry, as readings of one counter. */
function readings(items: readonly TimelineEntry[], counter: "mutations" | "paid_calls") {
  return items.flatMap(({ entry, outcome }) =>
    [entry, outcome].flatMap((e) =>
      e === null ? [] : [{ at: Date.parse(e.at), used: e.budget_after[counter] }],
    ),
  );
}

/** The run's charts; nothing before its first call. */
export function RunCharts(props: { run: RunSummary; items: readonly TimelineEntry[] }) {
  const { run, items } = props;
  const bins = runBins(items);
  if (bins === null) return null;
  const decisions = stackBy(decisionPoints(items), bins, AuditDecisionSchema.options);
  const burn = (counter: "mutations" | "paid_calls") =>
    burnOver(readings(items, counter), bins, run.budget[counter].limit);
  return (
    <section class="charts panel" aria-label="Charts">
      <StackedChart
        id="chart-decisions"
        title="Calls over time, by decision"
        data={decisions}
        look={DECISION_LOOK}
      />
      <BurnChart
        id="chart-mutations"
        title="Mutations used against the limit"
        burn={burn("mutations")}
      />
      <BurnChart
        id="chart-paid-calls"
        title="Paid calls used against the limit"
        burn={burn("paid_calls")}
      />
    </section>
  );
}
