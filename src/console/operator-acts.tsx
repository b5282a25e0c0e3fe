/**
 * The console's forms for what waits on a run: approve or deny an approval, resolve an
 * escalation. The form is checked with the API's own schemas and acted on through the same
 * functions its operator routes call, with the form as received kept as the act's evidence.
 */
import type { Hono } from "hono";
import * as v from "valibot";
import { canonicalize } from "../core/canonical.ts";
import { parseStrictJson } from "../core/json.ts";
import type { Fence } from "../core/policy.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  APPROVAL_ID,
  applyDecision,
  DecisionSchema,
  editOf,
  ResolutionSchema,
} from "../http/approvals.ts";
import { MAX_JSON_DEPTH } from "../http/limits.ts";
import { ledgerOf } from "../ledger/address.ts";
import type { OperatorAct, OperatorDecision } from "../ledger/approvals/approval-types.ts";
import type { RunRef } from "../ledger/protocol.ts";
import type { ApprovalEdit } from "../ledger/run/operator.ts";
import { actorOf, runRefOf } from "./access.ts";
import type { ConsoleContext, ConsoleEnv } from "./context.ts";
import { refusalText } from "./waiting.tsx";

/** What a posted act form carried, checked, with the act to record and the form as read. */
type ReadAct<T> =
  | { ok: true; body: T; act: OperatorAct; form: URLSearchParams }
  | { ok: false; error: string };

async function readAct<S extends v.GenericSchema>(
  c: ConsoleContext,
  schema: S,
  field: string,
): Promise<ReadAct<v.InferOutput<S>>> {
  // The console's body limit (16 KiB) bounds the form; it is kept whole as the evidence.
  const text = await c.req.text();
  const form = new URLSearchParams(text);
  const checked = v.safeParse(schema, { [field]: form.get(field), note: form.get("note") ?? "" });
  if (!checked.success)
    return { ok: false, error: checked.issues.map((i) => i.message).join("; ") };
  const operator = c.get("operator");
  const evidence = {
    contentType: c.req.header("Content-Type") ?? null,
    payload: text,
    truncated: false,
  };
  const body = checked.output as v.InferOutput<S> & { note: string };
  return {
    ok: true,
    body,
    act: { actor: actorOf(operator), principal: operator.principal, note: body.note, evidence },
    form,
  };
}

/** A refusal in words, with each contract issue an edit broke. */
function refusalWords(refusal: Refusal): string {
  const issues = (refusal.issues ?? []).map((i) => `${i.path || "(args)"}: ${i.message}`);
  return issues.length === 0
    ? refusalText(refusal)
    : `${refusalText(refusal)} (${issues.join("; ")})`;
}

/**
 * The form's `args` (`text`) as an edit of approval `id`, or none: a text left as shown (the same JSON
 * as the arguments the approval now holds) approves them as they are. An edit goes through the
 * API's own check (src/http/approvals.ts `editOf`), so a sensitive argument left in its
 * redacted form is refused there.
 */
async function formEdit(
  c: ConsoleContext,
  fence: Fence,
  ref: RunRef,
  id: string,
  decision: OperatorDecision,
  text: string,
): Promise<Result<ApprovalEdit | undefined, Refusal>> {
  if (text.trim() === "") return ok(undefined);
  const parsed = parseStrictJson(text, { maxDepth: MAX_JSON_DEPTH });
  if (!parsed.ok)
    return err(refuse("malformed_payload", `The edited args are not JSON: ${parsed.error.detail}`));
  const approval = await ledgerOf(c.env, ref).approval(id);
  if (approval === null) return ok(undefined);
  const current = JSON.parse(approval.edited_args ?? approval.args) as unknown;
  if (canonicalize(parsed.value) === canonicalize(current)) return ok(undefined);
  if (decision !== "approve") {
    return err(
      refuse("malformed_payload", "The arguments were edited: an edit may only be approved."),
    );
  }
  return editOf(c.env, c.req.raw, fence, approval, parsed.value);
}

/** The routes' answers: back to the run's page with what happened, or why not. */
export type ActAnswer = (
  c: ConsoleContext,
  ref: RunRef,
  text: string | null,
  done: string,
) => Promise<Response>;

/**
 * Mount the act routes; `answer` renders the run's page with an error (text) or redirects to
 * it with what was done.
 */
export function mountActs(
  app: Hono<ConsoleEnv>,
  answer: ActAnswer,
  missing: (c: ConsoleContext) => Promise<Response>,
  fence: Fence,
): void {
  app.post("/runs/:run_id/approvals/:approval_id", async (c) => {
    const ref = runRefOf(c);
    const id = c.req.param("approval_id");
    if (ref === null || !APPROVAL_ID.test(id)) return missing(c);
    const read = await readAct(c, DecisionSchema, "decision");
    if (!read.ok) return answer(c, ref, `The decision is not valid: ${read.error}.`, "");
    const args = read.form.get("args") ?? "";
    const edit = await formEdit(c, fence, ref, id, read.body.decision, args);
    if (!edit.ok) return answer(c, ref, refusalWords(edit.error), "");
    const { decision } = read.body;
    const decided = await applyDecision(c.env, ref, id, decision, read.act, edit.value);
    if (decided.kind === "refuse") return answer(c, ref, refusalWords(decided.refusal), "");
    return answer(c, ref, null, read.body.decision === "approve" ? "approved" : "denied");
  });

  app.post("/runs/:run_id/escalations/:seq", async (c) => {
    const ref = runRefOf(c);
    const seq = c.req.param("seq");
    if (ref === null || !/^[1-9]\d{0,14}$/.test(seq)) return missing(c);
    const read = await readAct(c, ResolutionSchema, "resolution");
    if (!read.ok) return answer(c, ref, `The resolution is not valid: ${read.error}.`, "");
    const ledger = ledgerOf(c.env, ref);
    const resolved = await ledger.resolveEscalation(Number(seq), read.body.resolution, read.act);
    if (resolved.kind === "refuse") return answer(c, ref, resolved.refusal.detail, "");
    return answer(c, ref, null, read.body.resolution);
  });
}
