/**
 * The console's forms for what waits on a run: approve or deny an approval, resolve an
 * escalation. The form is checked with the API's own schemas and acted on through the same
 * functions its operator routes call, with the form as received kept as the act's evidence.
 */
import type { Hono } from "hono";
import * as v from "valibot";
import { APPROVAL_ID, applyDecision, DecisionSchema, ResolutionSchema } from "../http/approvals.ts";
import { ledgerOf } from "../ledger/address.ts";
import type { OperatorAct } from "../ledger/approvals/approval-types.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { actorOf, runRefOf } from "./access.ts";
import type { ConsoleContext, ConsoleEnv } from "./context.ts";

/** What a posted act form carried, checked, with the act to record. */
type ReadAct<T> = { ok: true; body: T; act: OperatorAct } | { ok: false; error: string };

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
  };
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
): void {
  app.post("/runs/:run_id/approvals/:approval_id", async (c) => {
    const ref = runRefOf(c);
    const id = c.req.param("approval_id");
    if (ref === null || !APPROVAL_ID.test(id)) return missing(c);
    const read = await readAct(c, DecisionSchema, "decision");
    if (!read.ok) return answer(c, ref, `The decision is not valid: ${read.error}.`, "");
    const decided = await applyDecision(c.env, ref, id, read.body.decision, read.act);
    if (decided.kind === "refuse") return answer(c, ref, decided.refusal.detail, "");
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
