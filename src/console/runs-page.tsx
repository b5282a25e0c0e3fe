/**
 * The runs page: the tenant's runs from its run index, each with its status, budget gauges,
 * counts by decision and open escalations, newest activity first, filterable by status.
 * Status comes from each run's own ledger (`RunLedger.summary`), the same object the API's
 * `GET /v1/runs/{id}` reads, so the list is as fresh as the runs themselves.
 */
import type { Hono } from "hono";
import { ledgerOf, tenantLedgerOf } from "../ledger/address.ts";
import type { RunSummary } from "../ledger/protocol.ts";
import type { ConsoleEnv, Operator } from "./context.ts";
import { DecisionBadge, Gauge, html, Page, StatusBadge, utcTime } from "./layout.tsx";

/** How many of the most recently created runs the page reads (one object call each). */
export const RUN_LIST_SIZE = 100;

const FILTERS = ["all", "open", "halted", "expired"] as const;
type Filter = (typeof FILTERS)[number];

const FILTER_LABEL: Record<Filter, string> = {
  all: "All runs",
  open: "Open",
  halted: "Halted",
  expired: "Past deadline",
};

/** The tenant's most recent runs with their status, newest activity first. */
async function runsOf(env: Env, tenant: string): Promise<RunSummary[]> {
  const indexed = await tenantLedgerOf(env, tenant).runs(RUN_LIST_SIZE);
  const summaries: (RunSummary | null)[] = await Promise.all(
    indexed.map((r) => ledgerOf(env, { tenant, runId: r.run_id }).summary()),
  );
  return summaries
    .filter((s) => s !== null)
    .sort((a, b) => b.last_activity_at.localeCompare(a.last_activity_at));
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

function RunRow(props: { run: RunSummary }) {
  const { run } = props;
  return (
    <tr>
      <td>
        <a href={`/console/runs/${encodeURIComponent(run.run_id)}`}>
          <code>{run.run_id}</code>
        </a>
      </td>
      <td>
        <StatusBadge status={run.status} />
      </td>
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

function RunsPage(props: { operator: Operator; runs: RunSummary[]; filter: Filter }) {
  const { runs, filter } = props;
  return (
    <Page title="Runs" viewer={props.operator}>
      <h1>Runs</h1>
      <form method="get" action="/console/runs" class="panel">
        <label for="status">Status</label>
        <select id="status" name="status" data-autosubmit>
          {FILTERS.map((f) => (
            <option value={f} selected={f === filter}>
              {FILTER_LABEL[f]}
            </option>
          ))}
        </select>{" "}
        <button type="submit">Filter</button>
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
              <th>Last activity (UTC)</th>
              <th>Mutations</th>
              <th>Paid calls</th>
              <th>Decisions</th>
              <th>Open escalations</th>
              <th>Pending approvals</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <RunRow run={run} />
            ))}
          </tbody>
        </table>
      </div>
      {runs.length === 0 ? <p class="muted">No runs to show.</p> : null}
    </Page>
  );
}

/** `GET /console/runs?status=`. */
export function mountRunList(app: Hono<ConsoleEnv>): void {
  app.get("/runs", async (c) => {
    const asked = c.req.query("status") ?? "all";
    const filter: Filter = FILTERS.find((f) => f === asked) ?? "all";
    const operator = c.get("operator");
    const all = await runsOf(c.env, operator.tenant);
    const runs = filter === "all" ? all : all.filter((r) => r.status === filter);
    return html(<RunsPage operator={operator} runs={runs} filter={filter} />);
  });
}
