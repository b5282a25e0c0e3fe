/**
 * A run's page: its summary (status, budget gauges, counts, limits), the operator's
 * actions (halt, tighten limits) and the timeline. The summary and timeline are also served
 * alone as the live fragment the page's script polls while the run is active.
 */
import { formatDuration } from "../core/duration.ts";
import type { EscalationView } from "../ledger/approvals/approval-types.ts";
import type { RunSummary } from "../ledger/protocol.ts";
import type { CallContext } from "./call-detail.tsx";
import type { Operator } from "./context.ts";
import { DecisionBadge, Gauge, Notice, Page, StatusBadge, utcTime } from "./layout.tsx";
import { RunCharts } from "./run-charts.tsx";
import { Entry, type TimelineEntry, TimelineHead } from "./timeline.tsx";
import { Waiting, type WaitingApproval } from "./waiting.tsx";

/** Everything a run's page shows. */
export interface RunPageData {
  /** The run's status and budget. */
  run: RunSummary;
  /** Its calls, oldest first (one page of audit entries). */
  entries: TimelineEntry[];
  /** When the page was read (ms since the epoch): how long open calls have been open. */
  now: number;
  /** The run's approvals and escalations, which a call's detail names. */
  context: CallContext;
  /** The cursor of the next page of entries, or null on the last. */
  nextAfter: number | null;
  /** What the last action did, or why it was refused. */
  notice: { kind: "info" | "error"; text: string } | null;
  /** The run's tools whose upstream is not configured here, with what each lacks. */
  unconfigured: ReadonlyMap<string, string>;
  /** What waits for an operator. */
  waiting: {
    /** Pending approvals, oldest first, with who may decide them. */
    approvals: WaitingApproval[];
    /** Open escalations, oldest first. */
    escalations: EscalationView[];
  };
}

function runPath(run: RunSummary): string {
  return `/console/runs/${encodeURIComponent(run.run_id)}`;
}

/** The part of the page the live poll replaces. */
export function Summary(props: { run: RunSummary }) {
  const { run } = props;
  const counts = Object.entries(run.decisions).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section id="run-summary" class="panel grid" data-status={run.status}>
      <div>
        <div class="muted">Status</div>
        <StatusBadge status={run.status} />
        {run.halt_reason === null ? null : <div>“{run.halt_reason}”</div>}
      </div>
      <div>
        <div class="muted">Mutations</div>
        <Gauge label="mutations" {...run.budget.mutations} />
      </div>
      <div>
        <div class="muted">Paid calls</div>
        <Gauge label="paid calls" {...run.budget.paid_calls} />
      </div>
      <div>
        <div class="muted">Deadline</div>
        <span class="num">{utcTime(run.deadline_at)}</span>
      </div>
      <div>
        <div class="muted">Decisions</div>
        {counts.map(([d, n]) => (
          <div>
            <DecisionBadge decision={d} /> <span class="num">{n}</span>
          </div>
        ))}
      </div>
      <div>
        <div class="muted">Waiting for an operator</div>
        <div>
          <span class="num">{run.pending_approvals}</span> pending approval(s)
        </div>
        <div>
          <span class="num">{run.open_escalations}</span> open escalation(s)
        </div>
      </div>
    </section>
  );
}

/** The summary and the timeline's entries alone: the live fragment. */
export function LiveFragment(props: {
  run: RunSummary;
  entries: TimelineEntry[];
  now: number;
  context: CallContext;
}) {
  return (
    <div>
      <Summary run={props.run} />
      <table>
        {props.entries.map((item) => (
          <Entry item={item} now={props.now} context={props.context} />
        ))}
      </table>
    </div>
  );
}

function HaltForm(props: { run: RunSummary }) {
  return (
    <form method="post" action={`${runPath(props.run)}/halt`} class="panel" id="halt">
      <h2>Halt the run</h2>
      <label for="halt-reason">Reason</label>
      <input id="halt-reason" name="reason" type="text" maxlength={200} required size={40} />
      <label class="check">
        <input type="checkbox" name="confirm" value="yes" required /> I understand every later call
        of this run is refused.
      </label>
      <button type="submit" class="danger">
        Halt run
      </button>
    </form>
  );
}

function LimitsForm(props: { run: RunSummary; unconfigured: ReadonlyMap<string, string> }) {
  const { limits } = props.run;
  const number = (name: "max_mutations" | "max_paid_calls", label: string) => (
    <>
      <label for={`limit-${name}`}>{label}</label>
      <input id={`limit-${name}`} name={name} type="number" min={0} value={limits[name]} />
    </>
  );
  return (
    <form method="post" action={`${runPath(props.run)}/limits`} class="panel" id="limits">
      <h2>Tighten limits</h2>
      <p class="muted">Limits can only be tightened; a looser value is refused.</p>
      {number("max_mutations", "Most mutations")}
      {number("max_paid_calls", "Most paid calls")}
      <label for="limit-deadline">Deadline, after the run began (like 15m, 1h, 90s)</label>
      <input
        id="limit-deadline"
        name="deadline"
        type="text"
        value={formatDuration(limits.deadline_ms)}
        pattern="\s*(\d+[dD])?\s*(\d+[hH])?\s*(\d+[mM])?\s*(\d+[sS])?\s*"
        size={10}
      />
      <fieldset>
        <legend>Tools the run may call</legend>
        {limits.allowed_tools.map((tool) => {
          const missing = props.unconfigured.get(tool);
          return (
            <label class="check">
              <input type="checkbox" name="allowed_tools" value={tool} checked />{" "}
              <code>{tool}</code>
              {missing === undefined ? null : (
                <span class="muted"> (not offered here: {missing})</span>
              )}
            </label>
          );
        })}
      </fieldset>
      <button type="submit">Tighten</button>
    </form>
  );
}

/** `GET /console/runs/{id}`. */
export function RunPage(props: { operator: Operator; data: RunPageData }) {
  const { run, entries, nextAfter, notice, waiting, now, context, unconfigured } = props.data;
  const path = runPath(run);
  const active = run.status === "open" && nextAfter === null;
  return (
    <Page title={`Run ${run.run_id}`} viewer={props.operator}>
      <h1>
        Run <code>{run.run_id}</code>
      </h1>
      {notice === null ? null : <Notice kind={notice.kind}>{notice.text}</Notice>}
      <Summary run={run} />
      <RunCharts run={run} items={entries} />
      <Waiting base={path} approvals={waiting.approvals} escalations={waiting.escalations} />
      <div class="grid">
        {run.status === "halted" ? null : <HaltForm run={run} />}
        {run.status === "open" ? <LimitsForm run={run} unconfigured={unconfigured} /> : null}
      </div>
      <h2>Timeline</h2>
      <p>
        <a href={`${path}/audit.ndjson`} download>
          Download the audit log (NDJSON)
        </a>{" "}
        <span id="live-status" class="live" aria-live="polite">
          {active ? "Live updates need JavaScript; reload to refresh." : ""}
        </span>
      </p>
      <div class="scroll">
        <table id="timeline" data-live={active ? `${path}/live` : undefined}>
          <TimelineHead />
          {entries.map((item) => (
            <Entry item={item} now={now} context={context} />
          ))}
        </table>
      </div>
      {entries.length === 0 ? (
        <p id="timeline-empty" class="muted">
          No calls yet.
        </p>
      ) : null}
      {nextAfter === null ? null : <a href={`${path}?after=${nextAfter}`}>Later entries</a>}
    </Page>
  );
}
