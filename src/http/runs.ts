/**
 * The run routes: the run id, status, limits, the audit pages and the kill switch.
 */
import * as v from "valibot";
import { mediaKind } from "../core/body.ts";
import { parseStrictJson } from "../core/json.ts";
import { type LimitOverride, LimitOverrideSchema } from "../core/limits.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import { ledgerOf, RUN_ID } from "../ledger/address.ts";
import type { EscalationFilter } from "../ledger/approvals/approval-types.ts";
import type { AuditEntry, RunRef } from "../ledger/protocol.ts";
import type { AppContext } from "./context.ts";
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, MAX_JSON_DEPTH, MAX_LIMITS_BYTES } from "./limits.ts";
import { problem } from "./problem.ts";
import { readBody } from "./read-body.ts";

export { ledgerOf, RUN_ID };

/** The run addressed by the route, or a refusal when its id is not acceptable. */
export function runRef(c: AppContext): RunRef | Response {
  const runId = c.req.param("run_id") ?? "";
  if (!RUN_ID.test(runId)) {
    return problem(
      refuse("invalid_run_id", `Run id ${JSON.stringify(runId.slice(0, 80))} is not accepted.`),
    );
  }
  const { tenant, keyId, audited } = c.get("principal");
  return { tenant, runId, by: keyId ?? "development", principal: audited, local: c.get("local") };
}

/** `GET /v1/runs/{run_id}`. */
export async function runStatus(c: AppContext, ref: RunRef): Promise<Response> {
  const view = await ledgerOf(c.env, ref).status();
  return view === null ? unseen(ref) : c.json(view);
}

/** A run of the caller's tenant that never saw a call: another tenant's run looks the same. */
export function unseen(ref: RunRef): Response {
  return problem(refuse("not_found", `No call of run ${ref.runId} was ever seen.`));
}

/**
 * `PUT /v1/runs/{run_id}`: open the run with limits at most as loose as the policy's
 * (201), or tighten an open run's limits (200). An empty body opens it with the policy's.
 */
export async function openRun(c: AppContext, ref: RunRef): Promise<Response> {
  const override = await readOverride(c.req.raw);
  if (!override.ok) return problem(override.error);
  const operator = c.get("principal").role === "operator";
  const answer = await ledgerOf(c.env, ref).open(ref, override.value, operator);
  if (answer.kind === "refuse") {
    return problem(answer.refusal, answer.field === null ? {} : { field: answer.field });
  }
  return c.json(answer.view, answer.created ? 201 : 200);
}

async function readOverride(request: Request): Promise<Result<LimitOverride, Refusal>> {
  const media = mediaKind(request.headers.get("Content-Type"));
  if (!media.ok) return media;
  if (media.value !== "json") {
    return err(refuse("unsupported_media_type", "Send the run's limits as application/json."));
  }
  const body = await readBody(request, MAX_LIMITS_BYTES);
  if (!body.ok) return body;
  if (body.value.trim() === "") return ok({});
  const parsed = parseStrictJson(body.value, { maxDepth: MAX_JSON_DEPTH });
  if (!parsed.ok) return parsed;
  const checked = v.safeParse(LimitOverrideSchema, parsed.value, { abortEarly: false });
  if (checked.success) return ok(checked.output);
  const where = checked.issues.map((i) => `${v.getDotPath(i) ?? "(body)"}: ${i.message}`);
  return err(refuse("malformed_payload", `The run's limits are not valid: ${where.join("; ")}.`));
}

/**
 * `POST /v1/runs/{run_id}/halt?reason=…`: the kill switch, an audit entry naming the key that
 * threw it. A run never seen is 404, so a mistyped id is not taken for a halt; `pre_halt=true`
 * halts it before its first call. The answer names the calls still in flight.
 */
export async function haltRun(c: AppContext, ref: RunRef): Promise<Response> {
  const reason = c.req.query("reason") ?? "halted by operator";
  const preHalt = c.req.query("pre_halt");
  if (preHalt !== undefined && preHalt !== "true") {
    return problem(refuse("malformed_payload", "pre_halt is true or absent."));
  }
  const act = {
    actor: ref.by ?? "development",
    note: reason.slice(0, 200),
    evidence: { contentType: null, payload: "", truncated: false },
  };
  const halted = await ledgerOf(c.env, ref).halt(ref, act, preHalt === "true");
  return halted === null ? unseen(ref) : c.json(halted);
}

function pageParam(value: string | undefined, fallback: number, max: number): number | null {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value)) return null;
  return Math.min(Number(value), max);
}

/** The `?after=SEQ&limit=N` cursor of a paged route, or a refusal. */
function pageOf(c: AppContext): { after: number; limit: number } | Response {
  const after = pageParam(c.req.query("after"), 0, Number.MAX_SAFE_INTEGER);
  const limit = pageParam(c.req.query("limit"), AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX);
  if (after === null || limit === null || limit === 0) {
    return problem(
      refuse("malformed_payload", "after and limit are non-negative integers; limit ≥ 1."),
    );
  }
  return { after, limit };
}

/** The cursor of the page after `entries`, or null when this page is the last. */
function nextAfter(entries: AuditEntry[], limit: number): number | null {
  const last = entries.at(-1);
  return entries.length === limit && last !== undefined ? last.seq : null;
}

/** `GET /v1/runs/{run_id}/escalations?status=open|resolved|all`: calls that need a human (open by default). */
export async function runEscalations(c: AppContext, ref: RunRef): Promise<Response> {
  const page = pageOf(c);
  if (page instanceof Response) return page;
  const filter = escalationFilter(c);
  if (filter instanceof Response) return filter;
  const entries = await ledgerOf(c.env, ref).escalations(page.after, page.limit, filter);
  return c.json({
    run_id: ref.runId,
    status: filter,
    escalations: entries,
    next_after: nextAfter(entries, page.limit),
  });
}

/** `GET /v1/runs/{run_id}/audit?after=SEQ&limit=N`, JSON or NDJSON. */
export async function runAudit(c: AppContext, ref: RunRef): Promise<Response> {
  const page = pageOf(c);
  if (page instanceof Response) return page;
  const { after, limit } = page;
  const read = await ledgerOf(c.env, ref).audit(after, limit);
  if (read === null) return unseen(ref);
  if (read.kind === "missing") {
    console.error(`audit page of run ${ref.runId}: ${read.problem}`);
    return problem(refuse("internal_error", `The audit cannot be read: ${read.problem}.`));
  }
  const { entries } = read;
  const next = nextAfter(entries, limit);
  if ((c.req.header("Accept") ?? "").includes("application/x-ndjson")) {
    const lines = entries.map((e) => `${JSON.stringify(e)}\n`).join("");
    const headers: Record<string, string> = {
      "Content-Type": "application/x-ndjson; charset=utf-8",
    };
    // RFC 8288: the next page is a link, since NDJSON has no envelope to carry it.
    if (next !== null) headers.Link = `<?after=${next}&limit=${limit}>; rel="next"`;
    return new Response(lines, { headers });
  }
  return c.json({ run_id: ref.runId, entries, next_after: next });
}

/** `?status=open|resolved|all` of the escalations list; open by default. */
export function escalationFilter(c: AppContext): EscalationFilter | Response {
  const status = c.req.query("status") ?? "open";
  if (status === "open" || status === "resolved" || status === "all") return status;
  return problem(refuse("malformed_payload", "status is one of open, resolved, all."));
}
