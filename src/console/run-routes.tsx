/**
 * The routes of one run: its page, the live fragment, the NDJSON download, and the
 * actions: halt, tighten limits, and (operator-acts.tsx) approvals and escalations. Each reads or acts through the same RunLedger methods
 * the API's routes call (`summary`/`status`, `audit`, `halt`, `open`), so the console
 * never decides anything itself.
 */
import type { Hono } from "hono";
import * as v from "valibot";
import { parseDuration } from "../core/duration.ts";
import { LimitOverrideSchema } from "../core/limits.ts";
import type { Fence } from "../core/policy.ts";
import { offeredTools } from "../execute/configured.ts";
import { MAX_JSON_DEPTH } from "../http/limits.ts";
import { ledgerOf } from "../ledger/address.ts";
import type { AuditPage } from "../ledger/audit/audit-reader.ts";
import type { AuditEntry, RunRef } from "../ledger/protocol.ts";
import { actorOf, runRefOf } from "./access.ts";
import { mountApprovalPage } from "./approval-page.tsx";
import type { CallContext } from "./call-detail.tsx";
import type { ConsoleContext, ConsoleEnv, Operator } from "./context.ts";
import { html, Notice, Page } from "./layout.tsx";
import { mountActs } from "./operator-acts.tsx";
import { LiveFragment, RunPage, type RunPageData } from "./run-page.tsx";
import { callsOf, explain, type ReadOptions } from "./timeline.tsx";
import { waitingOf } from "./waiting.tsx";

/** Entries per page of the timeline, and per read of the NDJSON download. */
const PAGE = 500;

/** Open escalations shown on a run's page, oldest first. */
const WAITING_SHOWN = 100;

/** Escalations read for a run's page, open or resolved, oldest first: calls' details name them. */
const ESCALATIONS_READ = 500;

/** What each act's `?done=` says on the page it returns to. */
const DONE: Record<string, string> = {
  halted: "The run is halted; every later call is refused.",
  limits: "The run's limits are tightened.",
  approved: "Approved: the agent's next proposal of the same call is admitted, once.",
  denied: "Denied: the agent's proposals of the call are refused.",
  retry_allowed: "Escalation resolved: the same key may run once more.",
  closed: "Escalation closed.",
};

/** The longest halt reason kept, as the API keeps it. */
const MAX_HALT_REASON = 200;

type PageNotice = RunPageData["notice"];

function cursorOf(value: string | undefined): number {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : 0;
}

function unknownRun(c: ConsoleContext) {
  return html(
    <Page title="No such run" viewer={c.get("operator")}>
      <Notice kind="error">
        No call of this run was ever seen. <a href="/console/runs">Back to the runs</a>
      </Notice>
    </Page>,
    404,
  );
}

/** A run's page data, or null when the run was never seen (or is another tenant's). */
async function pageData(
  read: ReadOptions,
  env: Env,
  ref: RunRef,
  after: number,
  notice: PageNotice,
  viewer: Operator,
) {
  const ledger = ledgerOf(env, ref);
  const [run, page, approvals, escalations] = await Promise.all([
    ledger.summary(),
    ledger.audit(after, PAGE),
    ledger.approvals(null),
    ledger.escalations(0, ESCALATIONS_READ, "all"),
  ]);
  if (run === null || page === null) return null;
  const entries = entriesOf(page);
  const items = await Promise.all(
    callsOf(entries).map(([e, outcome]) => explain(read, e, outcome)),
  );
  const last = entries.at(-1);
  const nextAfter = entries.length === PAGE && last !== undefined ? last.seq : null;
  const waiting = {
    approvals: (approvals ?? [])
      .filter((a) => a.status === "pending")
      .map((a) => waitingOf(read.fence, viewer, a)),
    escalations: escalations.filter((e) => e.resolution === null).slice(0, WAITING_SHOWN),
  };
  const context: CallContext = {
    approvals: new Map((approvals ?? []).map((a) => [a.approval_id, a])),
    escalations: new Map(escalations.map((e) => [e.seq, e])),
  };
  const now = Date.now();
  const tools = run.limits.allowed_tools.flatMap((t) => read.fence.tools.get(t) ?? []);
  const unconfigured = new Map(offeredTools(tools, env).unavailable.map((u) => [u.name, u.reason]));
  return {
    run,
    entries: items,
    nextAfter,
    notice,
    waiting,
    now,
    context,
    unconfigured,
  } satisfies RunPageData;
}

/** A page's entries; an archived segment that cannot be read fails the page, naming it. */
function entriesOf(page: AuditPage): AuditEntry[] {
  if (page.kind === "missing") throw new Error(page.problem);
  return page.entries;
}

/** The whole audit log as NDJSON, the same lines `GET /v1/runs/{id}/audit` serves, read a page at a time. */
function ndjson(env: Env, ref: RunRef): ReadableStream<Uint8Array> {
  const ledger = ledgerOf(env, ref);
  const encoder = new TextEncoder();
  let after = 0;
  return new ReadableStream({
    async pull(controller) {
      const page = await ledger.audit(after, PAGE);
      const entries = page === null ? [] : entriesOf(page);
      const text = entries.map((e) => `${JSON.stringify(e)}\n`).join("");
      if (text !== "") controller.enqueue(encoder.encode(text));
      const last = entries.at(-1);
      if (entries.length < PAGE || last === undefined) controller.close();
      else after = last.seq;
    },
  });
}

/** The form's limits as the API's override, or why they are not valid. */
function overrideOf(form: Record<string, string | File | (string | File)[]>) {
  const numbers: Record<string, number> = {};
  for (const name of ["max_mutations", "max_paid_calls"]) {
    const value = form[name];
    if (typeof value === "string" && value.trim() !== "") numbers[name] = Number(value);
  }
  const deadline = form.deadline;
  if (typeof deadline === "string" && deadline.trim() !== "") {
    const ms = parseDuration(deadline);
    if (ms === null) {
      const error = `The deadline "${deadline.slice(0, 40)}" is not a duration: write it like 15m, 1h or 90s.`;
      return { ok: false as const, error };
    }
    numbers.deadline_ms = ms;
  }
  const tools = form.allowed_tools;
  const allowed = tools === undefined ? [] : Array.isArray(tools) ? tools : [tools];
  const checked = v.safeParse(LimitOverrideSchema, { ...numbers, allowed_tools: allowed });
  if (checked.success) return { ok: true as const, value: checked.output };
  const where = checked.issues.map((i) => `${v.getDotPath(i) ?? "form"}: ${i.message}`);
  return { ok: false as const, error: `The limits are not valid: ${where.join("; ")}.` };
}

/** Mount the run routes on the console. */
export function mountRuns(app: Hono<ConsoleEnv>, fence: Fence): void {
  const read: ReadOptions = { fence, maxDepth: MAX_JSON_DEPTH };

  async function render(c: ConsoleContext, ref: RunRef, notice: PageNotice, status = 200) {
    const after = cursorOf(c.req.query("after"));
    const data = await pageData(read, c.env, ref, after, notice, c.get("operator"));
    if (data === null) return unknownRun(c);
    return html(<RunPage operator={c.get("operator")} data={data} />, status);
  }

  app.get("/runs/:run_id", async (c) => {
    const ref = runRefOf(c);
    if (ref === null) return unknownRun(c);
    const done = DONE[c.req.query("done") ?? ""];
    return render(c, ref, done === undefined ? null : { kind: "info", text: done });
  });

  app.get("/runs/:run_id/live", async (c) => {
    const ref = runRefOf(c);
    if (ref === null) return unknownRun(c);
    const after = cursorOf(c.req.query("after"));
    const data = await pageData(read, c.env, ref, after, null, c.get("operator"));
    if (data === null) return unknownRun(c);
    return html(
      <LiveFragment run={data.run} entries={data.entries} now={data.now} context={data.context} />,
    );
  });

  app.get("/runs/:run_id/audit.ndjson", async (c) => {
    const ref = runRefOf(c);
    if (ref === null || (await ledgerOf(c.env, ref).status()) === null) return unknownRun(c);
    return new Response(ndjson(c.env, ref), {
      headers: {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Content-Disposition": `attachment; filename="run-${ref.runId}.ndjson"`,
        "Cache-Control": "no-store",
      },
    });
  });

  app.post("/runs/:run_id/halt", async (c) => {
    const ref = runRefOf(c);
    if (ref === null || (await ledgerOf(c.env, ref).status()) === null) return unknownRun(c);
    const form = await c.req.parseBody();
    const reason = typeof form.reason === "string" ? form.reason.trim() : "";
    if (form.confirm !== "yes" || reason === "") {
      const text = "To halt the run, give a reason and tick the confirmation.";
      return render(c, ref, { kind: "error", text }, 422);
    }
    const operator = c.get("operator");
    const act = {
      actor: actorOf(operator),
      principal: operator.principal,
      note: reason.slice(0, MAX_HALT_REASON),
      evidence: {
        contentType: c.req.header("Content-Type") ?? null,
        payload: "",
        truncated: false,
      },
    };
    if ((await ledgerOf(c.env, ref).halt(ref, act, false)) === null) return unknownRun(c);
    return c.redirect(`/console/runs/${encodeURIComponent(ref.runId)}?done=halted`, 303);
  });

  app.post("/runs/:run_id/limits", async (c) => {
    const ref = runRefOf(c);
    if (ref === null || (await ledgerOf(c.env, ref).status()) === null) return unknownRun(c);
    const override = overrideOf(await c.req.parseBody({ all: true }));
    if (!override.ok) return render(c, ref, { kind: "error", text: override.error }, 422);
    // The console acts only as an operator, who may tighten any run of the tenant.
    const answer = await ledgerOf(c.env, ref).open(ref, override.value, true);
    if (answer.kind === "refuse") {
      return render(c, ref, { kind: "error", text: answer.refusal.detail }, 422);
    }
    return c.redirect(`/console/runs/${encodeURIComponent(ref.runId)}?done=limits`, 303);
  });

  mountActs(
    app,
    async function answer(c, ref, error, done) {
      if (error !== null) return render(c, ref, { kind: "error", text: error }, 422);
      return c.redirect(`/console/runs/${encodeURIComponent(ref.runId)}?done=${done}`, 303);
    },
    unknownRun,
    fence,
  );
  mountApprovalPage(app, fence, unknownRun);
}
