/**
 * What waits for the operator on a run: its pending approvals and open escalations, each
 * with its form. The forms post to the console, which acts through the same functions the
 * API's operator routes call (src/http/approvals.ts).
 */
import { deciderOf, decidersOf, mayDecide } from "../core/approval.ts";
import type { Fence } from "../core/policy.ts";
import { DECISION_TABLE, type Refusal } from "../core/reasons.ts";
import type { ApprovalView, EscalationView } from "../ledger/approvals/approval-types.ts";
import { ruleOf } from "../ledger/run/operator.ts";
import { actorOf } from "./access.ts";
import type { Operator } from "./context.ts";
import { utcTime } from "./layout.tsx";

/** A pending approval as its form shows it: who may decide, and whether the viewer may. */
export interface WaitingApproval {
  /** The approval as the ledger publishes it. */
  approval: ApprovalView;
  /** The people its rule names as its only deciders, or null when any operator decides. */
  people: string[] | null;
  /** Why the signed-in operator may not decide it, in words, or null when they may. */
  notYours: string | null;
}

/** A refusal in words: the decision table's title, then what the ledger said of this case. */
export function refusalText(refusal: Refusal): string {
  return `${DECISION_TABLE[refusal.reason].title}. ${refusal.detail}`;
}

/**
 * Who may decide approval `a`, by the rule that asked (the ledger decides the same way when
 * the form is posted; the proposer's own approval is refused only then).
 */
export function waitingOf(fence: Fence, viewer: Operator, a: ApprovalView): WaitingApproval {
  const rule = ruleOf(fence, a.tool, a.rule);
  const { approvers } = decidersOf(rule);
  const decider = deciderOf(viewer.principal, actorOf(viewer));
  const refusal = mayDecide(rule, decider, null, a.approval_id);
  return {
    approval: a,
    people: approvers === "operators" ? null : approvers.people,
    notYours: refusal === null ? null : refusalText(refusal),
  };
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

/** Who decides, who has approved so far, and how many more the rule needs. */
function Deciders(props: { waiting: WaitingApproval }) {
  const { approval: a, people, notYours } = props.waiting;
  const more = Math.max(a.quorum - a.approvals.length, 0);
  return (
    <>
      <p class="deciders">
        {people === null ? (
          "Any operator of the tenant may decide."
        ) : (
          <>
            Decided only by{" "}
            {people.map((p, i) => (
              <>
                {i === 0 ? "" : ", "}
                <code>{p}</code>
              </>
            ))}
            .
          </>
        )}{" "}
        Approved by {a.approvals.length} of {a.quorum} needed
        {a.approvals.length === 0 ? "" : ": "}
        {a.approvals.map((v, i) => (
          <>
            {i === 0 ? "" : ", "}
            <code>{v.by}</code> at {utcTime(v.at)}
          </>
        ))}
        ; {more} more approval{more === 1 ? "" : "s"} needed.
      </p>
      {notYours === null ? null : <p class="notice error">{notYours}</p>}
    </>
  );
}

/**
 * The arguments, editable: the text as shown approves the call as it is; a changed text is
 * sent as the approval's edit (a sensitive argument shows redacted and must be replaced).
 */
function ArgsField(props: { approval: ApprovalView }) {
  const a = props.approval;
  const id = `args-${a.approval_id}`;
  const current = a.edited_args ?? a.args;
  return (
    <>
      <pre>{argsText(a.args)}</pre>
      {a.edited_args === null ? null : (
        <p class="muted">An approver edited these arguments; the grant binds the edit below.</p>
      )}
      <label for={id}>Arguments (edit them to approve a changed call)</label>
      <textarea id={id} name="args" rows={8} cols={60} spellcheck={false}>
        {argsText(current)}
      </textarea>
    </>
  );
}

/** One pending approval with its deciders, arguments and buttons, posting to `${base}/approvals/{id}`. */
export function Approval(props: { base: string; waiting: WaitingApproval }) {
  const a = props.waiting.approval;
  return (
    <form
      method="post"
      action={`${props.base}/approvals/${a.approval_id}`}
      class="panel"
      id={`approval-${a.approval_id}`}
    >
      <p>
        <code>{a.tool}</code> asks for approval (rule <code>{a.rule}</code>), until{" "}
        {utcTime(a.expires_at)}.
        {a.idempotency_key === null ? null : (
          <>
            {" "}
            A grant admits only key <code>{a.idempotency_key}</code>.
          </>
        )}
      </p>
      <Deciders waiting={props.waiting} />
      <ArgsField approval={a} />
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
        Audit entry #{e.seq}: <code>{e.tool ?? "?"}</code>, escalated with{" "}
        <code>{e.reason ?? ""}</code>.
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
  approvals: WaitingApproval[];
  escalations: EscalationView[];
}) {
  const { base, approvals, escalations } = props;
  if (approvals.length === 0 && escalations.length === 0) return null;
  return (
    <section id="waiting">
      {approvals.length === 0 ? null : <h2>Pending approvals</h2>}
      {approvals.map((a) => (
        <Approval base={base} waiting={a} />
      ))}
      {escalations.length === 0 ? null : <h2>Open escalations</h2>}
      {escalations.map((e) => (
        <Escalation base={base} escalation={e} />
      ))}
    </section>
  );
}
