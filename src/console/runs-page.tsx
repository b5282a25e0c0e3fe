/**
 * The runs page: the tenant's runs from its run index, led by those that need a person
 * (pending approvals, open escalations, near a limit, halted), each with its status, budget
 * gauges, counts by decision, open escalations and pending approvals; filterable by what
 * needs a person or by status, sortable. Status comes from each run's own ledger
 * (`RunLedger.summary`), the same object the API's `GET /v1/runs/{id}` reads, so the list is
 * as fresh as the runs themselves.
 */
import type { Hono } from "hono";
import type { RunSummary } from "../ledger/protocol.ts";
import { type CallSeen, recentCalls, TenantCharts } from "./activity.tsx";
import { nearLimit, needsAPerson, RUN_LIST_SIZE, runsOf } from "./attention.ts";
import type { ConsoleEnv, Operator } from "./context.ts";
import { DecisionBadge, Gauge, html, Page, StatusBadge, utcTime } from "./layout.tsx";

const FILTERS = [
  "all",
  "attention",
  "approvals",
  "escalations",
  "near_limit",
  "open",
  "halted",
  "expired",
] as const;
type Filter = (typeof FILTERS)[number];

const FILTER_LABEL: Record<Filter, string> = {
  all: "All runs",
  attention: "Needs a person",
  approvals: "Pending approvals",
  escalations: "Open escalations",
  near_limit: "Near a limit",
  open: "Open",
  halted: "Halted",
  expired: "Past deadline",
};

/** Whether `run` passes `filter`, as of `now`. */
function passes(filter: Filter, run: RunSummary, now: number): boolean {
  switch (filter) {
    case "all":
      return true;
    case "attention":
      return needsAPerson(run, now);
    case "approvals":
      return run.pending_approvals > 0;
    case "escalations":
      return run.open_escalations > 0;
    case "near_limit":
      return nearLimit(run, now);
    default:
      return run.status === filter;
  }
}

const SORTS = ["attention", "activity", "created"] as const;
type Sort = (typeof SORTS)[number];

const SORT_LABEL: Record<Sort, string> = {
  attention: "Needs a person first",
  activity: "Newest activity first",
  created: "Newest run first",
};

/** `runs` (newest activity first) in the order `sort` asks, as of `now`. */
function sorted(runs: RunSummary[], sort: Sort, now: number): RunSummary[] {
  if (sort === "activity") return runs;
  if (sort === "created") return [...runs].sort((a, b) => b.created_at.localeCompare(a.created_at));
  // Stable: within each group, newest activity first.
  const weight = (r: RunSummary) => r.pending_approvals + r.open_escalations;
  return [...runs].sort(
    (a, b) => Number(needsAPerson(b, now)) - Number(needsAPerson(a, now)) || weight(b) - weight(a),
  );
}

/** Why a run needs a person, in words; empty when it does not. */
function needs(run: RunSummary, now: number): string[] {
  const why: string[] = [];
  if (run.pending_approvals > 0) why.push(`${run.pending_approvals} pending approval(s)`);
  if (run.open_escalations > 0) why.push(`${run.open_escalations} open escalation(s)`);
  if (nearLimit(run, now)) why.push("near a limit");
  if (run.status === "halted") why.push("halted");
  return why;
}

function Decisions(props: { counts: Record<string, number> }) {
  const entries = Object.entries(props.counts).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <>
      {entries.map(([decision, n]) => (
        <div>
          <DecisionBadge decision={decision} /> <span class="num">{n}</span>
        </div>
      ))}
    </>
  );
}

function RunRow(props: { run: RunSummary; now: number }) {
  const { run } = props;
  const why = needs(run, props.now);
  return (
    <tr class={why.length > 0 ? "needs" : undefined} data-run={run.run_id}>
      <td>
        <a href={`/console/runs/${encodeURIComponent(run.run_id)}`}>
          <code>{run.run_id}</code>
        </a>
      </td>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td class="why">{why.length === 0 ? <span class="muted">nothing</span> : why.join(", ")}</td>
      <td class="num">{utcTime(run.last_activity_at)}</td>
      <td>
        <Gauge label="mutations" {...run.budget.mutations} />
      </td>
      <td>
        <Gauge label="paid calls" {...run.budget.paid_calls} />
      </td>
      <td>
        <Decisions counts={run.decisions} />
      </td>
      <td class="num">{run.open_escalations}</td>
      <td class="num">{run.pending_approvals}</td>
    </tr>
  );
}

function RunsPage(props: {
  operator: Operator;
  runs: RunSummary[];
  filter: Filter;
  sort: Sort;
  now: number;
  calls: readonly CallSeen[];
}) {
  const { runs, filter, sort, now } = props;
  return (
    <Page title="Runs" viewer={props.operator}>
      <h1>Runs</h1>
      <TenantCharts calls={props.calls} now={now} />
      <form method="get" action="/console/runs" class="panel">
        <label for="status">Show</label>
        <select id="status" name="status" data-autosubmit>
          {FILTERS.map((f) => (
            <option value={f} selected={f === filter}>
              {FILTER_LABEL[f]}
            </option>
          ))}
        </select>
        <label for="sort">Order</label>
        <select id="sort" name="sort" data-autosubmit>
          {SORTS.map((o) => (
            <option value={o} selected={o === sort}>
              {SORT_LABEL[o]}
            </option>
          ))}
        </select>{" "}
        <button type="submit">Apply</button>
        <span class="muted">
          {" "}
          {runs.length} run(s); the {RUN_LIST_SIZE} most recently created are read.
        </span>
      </form>
      <div class="scroll">
        <table id="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Needs a person</th>
              <th>Last activity</th>
              <th>Mutations</th>
              <th>Paid calls</th>
              <th>Decisions</th>
              <th>Open escalations</th>
              <th>Pending approvals</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <RunRow run={run} now={now} />
            ))}
          </tbody>
        </table>
      </div>
      {runs.length === 0 ? <p class="muted">No runs to show.</p> : null}
    </Page>
  );
}

/** `GET /console/runs?status=&sort=`. */
export function mountRunList(app: Hono<ConsoleEnv>): void {
  app.get("/runs", async (c) => {
    const asked = c.req.query("status") ?? "all";
    const filter: Filter = FILTERS.find((f) => f === asked) ?? "all";
    const askedSort = c.req.query("sort") ?? "attention";
    const sort: Sort = SORTS.find((o) => o === askedSort) ?? "attention";
    const operator = c.get("operator");
    const all = await (operator.runs ?? (() => runsOf(c.env, operator.tenant)))();
    const now = Date.now();
    const calls = await recentCalls(c.env, operator.tenant, all, now);
    const runs = sorted(
      all.filter((r) => passes(filter, r, now)),
      sort,
      now,
    );
    const page = { runs, filter, sort, now, calls };
    return html(<RunsPage operator={operator} {...page} />);
  });
}
