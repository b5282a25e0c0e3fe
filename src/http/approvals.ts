/**
 * The operator's routes for approvals and escalations: list what waits (per run, per tenant),
 * approve or deny an approval, resolve an escalation. JSON in and out; the run's RunLedger
 * decides each act in one transaction, and the tenant's index is told after.
 */
import * as v from "valibot";
import type { ApprovalStatus } from "../core/approval.ts";
import { checkArgs } from "../core/gate.ts";
import { parseStrictJson } from "../core/json.ts";
import type { Fence } from "../core/policy.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { REDACTED_PREFIX, UNKEYED } from "../core/redact.ts";
import { err, ok, type Result } from "../core/result.ts";
import { type Approval, ApprovalStatusSchema } from "../core/shapes/approval.ts";
import { ResolutionKindSchema } from "../core/shapes/audit.ts";
import type {
  ApprovalView,
  DecideAnswer,
  OperatorAct,
  OperatorDecision,
} from "../ledger/approvals/approval-types.ts";
import type { RunRef } from "../ledger/protocol.ts";
import type { ApprovalEdit } from "../ledger/run/operator.ts";
import { recordApprovalDecided } from "../telemetry/index.ts";
import type { AppContext } from "./context.ts";
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, MAX_JSON_DEPTH, MAX_LIMITS_BYTES } from "./limits.ts";
import { problem } from "./problem.ts";
import { readBody } from "./read-body.ts";
import { redactionDigest } from "./redaction.ts";
import { ledgerOf, unseen } from "./runs.ts";

const STATUSES: readonly ApprovalStatus[] = ApprovalStatusSchema.options;
/** Approval ids as the ledger makes them. */
export const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;
/** An operator's note on a decision or a resolution. */
export const Note = v.optional(v.pipe(v.string(), v.maxLength(1000)), "");

/**
 * `POST /v1/runs/{id}/approvals/{approval_id}`; `args`, only with `approve`, edits the call's
 * arguments (checked against the tool's contract by `editOf`).
 */
export const DecisionSchema = v.strictObject({
  decision: v.picklist(["approve", "deny"]),
  note: Note,
  args: v.optional(
    v.pipe(v.unknown(), v.description("Only with `approve`: the arguments edited, in full.")),
  ),
});

/**
 * An approver's edit of `approval`'s arguments, through the same contract gate as a call
 * (no coercion, no unknown keys, safe URL path arguments) and fingerprinted as a call is; or
 * why not (a `400` naming the issues).
 */
export async function editOf(
  env: Env,
  request: Request,
  fence: Fence,
  approval: Pick<ApprovalView, "tool">,
  args: unknown,
): Promise<Result<ApprovalEdit, Refusal>> {
  const contract = fence.tools.get(approval.tool);
  if (contract === undefined) {
    return err(refuse("malformed_payload", `${approval.tool} is no longer a tool of this fence.`));
  }
  // An approval shows a sensitive argument only in its redacted form: an edit sends the value
  // itself, or leaves the argument out; the redacted form is no value to run with.
  const fields = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  const kept = (contract.sensitive ?? []).filter((name) => {
    const value = fields[name];
    return typeof value === "string" && (value.startsWith(REDACTED_PREFIX) || value === UNKEYED);
  });
  if (kept.length > 0) {
    const detail = `The edited args keep the redacted form of the sensitive ${kept.join(", ")}: send the value itself, or leave it out.`;
    return err(refuse("malformed_payload", detail));
  }
  const checked = await checkArgs(contract, args, redactionDigest(env, request));
  if (!checked.ok) {
    const failure = checked.error;
    if (failure.kind === "schema") {
      const detail = `The edited args break ${contract.name}'s contract: ${failure.refusal.detail}`;
      return err(refuse("malformed_payload", detail, failure.refusal.issues));
    }
    const names = failure.issues.map((i) => i.path).join(", ");
    return err(refuse("malformed_payload", `Unsafe URL path argument: ${names}`, failure.issues));
  }
  // Kept as an approval keeps arguments: each sensitive one in its redacted form.
  const { redacted, fingerprint } = checked.value;
  return ok({ args: JSON.stringify(redacted), fingerprint });
}

/** `POST /v1/runs/{id}/escalations/{seq}`. */
export const ResolutionSchema = v.strictObject({
  resolution: ResolutionKindSchema,
  note: Note,
});

/** `?status=`: one status, `all`, or the default. */
function statusParam(
  c: AppContext,
  fallback: ApprovalStatus | null,
): ApprovalStatus | null | Response {
  const status = c.req.query("status");
  if (status === undefined) return fallback;
  if (status === "all") return null;
  if ((STATUSES as readonly string[]).includes(status)) return status as ApprovalStatus;
  return problem(refuse("malformed_payload", `status is one of ${STATUSES.join(", ")} or all.`));
}

/** `GET /v1/approvals?status=pending&limit=N`: the tenant's approvals, pending by default. */
export async function tenantApprovals(c: AppContext): Promise<Response> {
  const status = statusParam(c, "pending");
  if (status instanceof Response) return status;
  const limitText = c.req.query("limit") ?? String(AUDIT_PAGE_DEFAULT);
  if (!/^[1-9]\d{0,8}$/.test(limitText)) {
    return problem(refuse("malformed_payload", "limit is a positive integer."));
  }
  const limit = Math.min(Number(limitText), AUDIT_PAGE_MAX);
  const tenant = c.get("principal").tenant;
  const approvals = await c.env.TENANT_INDEX.getByName(tenant).approvals(status, limit);
  return c.json({ tenant, status: status ?? "all", approvals });
}

/** `GET /v1/runs/{id}/approvals?status=`: the run's approvals, every status by default. */
export async function runApprovals(c: AppContext, ref: RunRef): Promise<Response> {
  const status = statusParam(c, null);
  if (status instanceof Response) return status;
  const approvals = await ledgerOf(c.env, ref).approvals(status);
  if (approvals === null) return unseen(ref);
  return c.json({
    run_id: ref.runId,
    status: status ?? "all",
    approvals: approvals.map(published),
  });
}

/** `POST /v1/runs/{id}/approvals/{approval_id}` with `{"decision","note"}`. */
export async function decideApproval(c: AppContext, ref: RunRef): Promise<Response> {
  const id = c.req.param("approval_id") ?? "";
  if (!APPROVAL_ID.test(id)) return problem(refuse("not_found", "No such approval."));
  const read = await readAct(c, DecisionSchema);
  if (!read.ok) return problem(read.error);
  const { body, act } = read.value;
  let edit: ApprovalEdit | undefined;
  if (body.args !== undefined && body.decision !== "approve") {
    const detail = "args may be sent only with decision approve.";
    return problem(refuse("malformed_payload", detail), { approval_id: id });
  }
  if (body.args !== undefined) {
    const approval = await ledgerOf(c.env, ref).approval(id);
    if (approval === null) {
      return problem(refuse("not_found", `Run has no approval ${id}.`), { approval_id: id });
    }
    const edited = await editOf(c.env, c.req.raw, c.get("fence"), approval, body.args);
    if (!edited.ok) return problem(edited.error, { approval_id: id });
    edit = edited.value;
  }
  const answer = await applyDecision(c.env, ref, id, body.decision, act, edit);
  if (answer.kind === "refuse") return problem(answer.refusal, { approval_id: id });
  return c.json(published(answer.approval));
}

/**
 * An operator's decision on an approval of the run: the run's RunLedger decides it, then the
 * tenant's index is told. The one way a decision is made, from this route or the console.
 */
export async function applyDecision(
  env: Env,
  ref: RunRef,
  id: string,
  decision: OperatorDecision,
  act: OperatorAct,
  edit?: ApprovalEdit,
): Promise<DecideAnswer> {
  const answer = await ledgerOf(env, ref).decide(id, decision, act, edit);
  if (answer.kind === "refuse") return answer;
  const a = answer.approval;
  await env.TENANT_INDEX.getByName(ref.tenant).noteApproval({
    approval_id: a.approval_id,
    run_id: a.run_id,
    tool: a.tool,
    rule: a.rule,
    status: a.status,
    requested_at: a.requested_at,
    expires_at: a.expires_at,
  });
  recordApprovalDecided(env, a.status, Date.now() - Date.parse(a.requested_at));
  return answer;
}

/** An approval as operators read it: its arguments as JSON, not JSON text. */
function published(a: ApprovalView): Approval {
  const edited = a.edited_args === null ? null : (JSON.parse(a.edited_args) as unknown);
  return { ...a, args: JSON.parse(a.args) as unknown, edited_args: edited };
}

/** `POST /v1/runs/{id}/escalations/{seq}` with `{"resolution","note"}`. */
export async function resolveEscalation(c: AppContext, ref: RunRef): Promise<Response> {
  const seqText = c.req.param("seq") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(seqText)) return problem(refuse("not_found", "No such escalation."));
  const read = await readAct(c, ResolutionSchema);
  if (!read.ok) return problem(read.error);
  const { body, act } = read.value;
  const answer = await ledgerOf(c.env, ref).resolveEscalation(
    Number(seqText),
    body.resolution,
    act,
  );
  if (answer.kind === "refuse") return problem(answer.refusal);
  return c.json(answer.escalation);
}

async function readAct<S extends v.GenericSchema>(
  c: AppContext,
  schema: S,
): Promise<Result<{ body: v.InferOutput<S>; act: OperatorAct }, Refusal>> {
  const contentType = c.req.header("Content-Type") ?? null;
  const text = await readBody(c.req.raw, MAX_LIMITS_BYTES);
  if (!text.ok) return text;
  const parsed = parseStrictJson(text.value, { maxDepth: MAX_JSON_DEPTH });
  if (!parsed.ok) return parsed;
  const checked = v.safeParse(schema, parsed.value, { abortEarly: false });
  if (!checked.success) {
    const where = checked.issues.map((i) => `${v.getDotPath(i) ?? "(body)"}: ${i.message}`);
    return err(refuse("malformed_payload", `The body is not valid: ${where.join("; ")}.`));
  }
  const body = checked.output as v.InferOutput<S> & { note: string };
  const { keyId, audited } = c.get("principal");
  const evidence = { contentType, payload: text.value, truncated: false };
  const act = { actor: keyId ?? "development", principal: audited, note: body.note, evidence };
  return ok({ body, act });
}
