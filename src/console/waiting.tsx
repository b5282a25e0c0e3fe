/**
 * What waits for the operator on a run: its pending approvals and open escalations, each
 * with its form. The forms post to the console, which acts through the same functions the
 * API's operator routes call (src/http/approvals.ts).
 */
import type { ApprovalView, EscalationView } from "../ledger/approvals/approval-types.ts";
import { utcTime } from "./layout.tsx";

function when(iso: string): string {
  return utcTime(iso);
}

function argsText(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

function NoteField(props: { id: string }) {
  return (
    <>
      <label for={props.id}>Note (optional)</label>
      <input id={props.id} name="note" type="text" maxlength={1000} size={40} />
    </>
  );
}

/** One pending approval with its approve and deny buttons, posting to `${base}/approvals/{id}`. */
export function Approval(props: { base: string; approval: ApprovalView }) {
  const a = props.approval;
  return (
    <form
      method="post"
      action={`${props.base}/approvals/${a.approval_id}`}
      class="panel"
      id={`approval-${a.approval_id}`}
    >
      <p>
        <code>{a.tool}</code> asks for approval (rule <code>{a.rule}</code>), until{" "}
        {when(a.expires_at)}.
        {a.idempotency_key === null ? null : (
          <>
            {" "}
            A grant admits only key <code>{a.idempotency_key}</code>.
          </>
        )}
      </p>
      <pre>{argsText(a.args)}</pre>
      <NoteField id={`note-${a.approval_id}`} />{" "}
      <button type="submit" name="decision" value="approve" class="primary">
        Approve
      </button>{" "}
      <button type="submit" name="decision" value="deny" class="danger">
        Deny
      </button>
    </form>
  );
}

function Escalation(props: { base: string; escalation: EscalationView }) {
  const e = props.escalation;
  return (
    <form
      method="post"
      action={`${props.base}/escalations/${e.seq}`}
      class="panel"
      id={`escalation-${e.seq}`}
    >
      <p>
        Call #{e.seq}, <code>{e.tool ?? "?"}</code>, escalated with <code>{e.reason ?? ""}</code>.
        {e.idempotency_key === null ? null : (
          <>
            {" "}
            Key <code>{e.idempotency_key}</code>.
          </>
        )}
      </p>
      <NoteField id={`note-esc-${e.seq}`} />{" "}
      <button type="submit" name="resolution" value="retry_allowed" class="primary">
        Allow one retry
      </button>{" "}
      <button type="submit" name="resolution" value="closed">
        Close
      </button>
    </form>
  );
}

/** The run's pending approvals and open escalations; nothing when none waits. */
export function Waiting(props: {
  base: string;
  approvals: ApprovalView[];
  escalations: EscalationView[];
}) {
  const { base, approvals, escalations } = props;
  if (approvals.length === 0 && escalations.length === 0) return null;
  return (
    <section id="waiting">
      {approvals.length === 0 ? null : <h2>Pending approvals</h2>}
      {approvals.map((a) => (
        <Approval base={base} approval={a} />
      ))}
      {escalations.length === 0 ? null : <h2>Open escalations</h2>}
      {escalations.map((e) => (
        <Escalation base={base} escalation={e} />
      ))}
    </section>
  );
}
