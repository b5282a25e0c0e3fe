/**
 * A call's detail, folded under its timeline row: what was decided and why in words, the
 * contract's issues, the payload as received, who proposed it, what the upstream answered when
 * its answer failed or escalated the call, the notes of its entries (guardrail findings, a late
 * settlement), and the approval or resolution with who decided.
 */

import { principalName } from "../core/principal.ts";
import type { Refusal } from "../core/reasons.ts";
import { DECISION_TABLE } from "../core/reasons.ts";
import type { UpstreamAnswer } from "../core/shapes/audit.ts";
import type { ApprovalView, EscalationView } from "../ledger/approvals/approval-types.ts";
import type { AuditDecision, AuditEntry } from "../ledger/protocol.ts";
import { utcTime } from "./layout.tsx";

/** A call (or an operator's act): its first entry, its outcome once settled, and why it was blocked. */
export interface TimelineEntry {
  /** The entry as the ledger stored it: the proposal of a call, or an entry that stands alone. */
  entry: AuditEntry;
  /** The entry that settled the call (`of` names `entry`), or null while it is open. */
  outcome: AuditEntry | null;
  /** The gate's refusal of the stored payload, re-read with the current contracts. */
  refusal: Refusal | null;
}

/** What a person needs besides the entries to read a call: its approval and escalation. */
export interface CallContext {
  /** The approval the call asked for or used, by id. */
  approvals: ReadonlyMap<string, ApprovalView>;
  /** Escalated calls with their resolution, by the escalated entry's seq. */
  escalations: ReadonlyMap<number, EscalationView>;
}

/** Each decision in words, as an on-call engineer would say it. */
const DECISION_WORDS: Record<AuditDecision, string> = {
  applied: "Applied: the tool answered and its result was returned.",
  cached: "Served from the cache; the tool was not called.",
  replayed: "Replayed: the answer stored for this idempotency key was returned again.",
  pending: "Admitted; the tool has not answered yet.",
  abandoned: "Abandoned: the worker that ran it never settled it within its lease.",
  approval_requested: "Sent to a person for approval.",
  approved: "A person approved the call.",
  approval_vote: "A person approved the call; the rule asks for more approvers first.",
  denied: "A person denied the call.",
  escalation_retry_allowed: "A person resolved the escalation: the same key may run once more.",
  escalation_closed: "A person closed the escalation.",
  halted: "A person halted the run: every later call is refused.",
  pin_accepted: "A person accepted a drifted MCP tool's new listing as its pin.",
  block: "Blocked: refused, and retrying the same call cannot succeed.",
  retry: "Not done: the tool may succeed later; retry with the same idempotency key.",
  escalate: "Escalated: a person has to look; retrying the same call cannot help.",
  needs_approval: "Waiting for a person's approval before it may run.",
};

/** Who proposed the call, in words: the key or person, and the OAuth client they acted through. */
function principalOf(entry: AuditEntry): string | null {
  const p = entry.principal;
  if (p === undefined || p === null) return null;
  const who =
    p.kind === "key"
      ? `API key ${principalName(p)}`
      : p.kind === "person"
        ? `${principalName(p)}, signed in at ${p.iss}`
        : principalName(p);
  return "client_id" in p && typeof p.client_id === "string"
    ? `${who}, through OAuth client ${p.client_id}`
    : who;
}

function Issues(props: { item: TimelineEntry; reason: string | null }) {
  const { refusal } = props.item;
  const issues = refusal !== null && refusal.reason === props.reason ? (refusal.issues ?? []) : [];
  if (issues.length === 0) return null;
  return (
    <table class="issues">
      <thead>
        <tr>
          <th>Path</th>
          <th>Issue</th>
          <th>Expected</th>
          <th>Received</th>
        </tr>
      </thead>
      <tbody>
        {issues.map((i) => (
          <tr>
            <td>
              <code>{i.path === "" ? "(payload)" : i.path}</code>
            </td>
            <td>{i.message}</td>
            <td>
              <code>{i.expected ?? ""}</code>
            </td>
            <td>
              <code>{i.received}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the upstream answered, as kept: its status in words and the excerpt, escaped by JSX. */
function Upstream(props: { answer: UpstreamAnswer }) {
  const a = props.answer;
  const said = a.status === null ? "No answer from the upstream" : `Upstream answered ${a.status}`;
  const rpc = a.rpc_error_code === undefined ? "" : ` with JSON-RPC error ${a.rpc_error_code}`;
  const isError = a.is_error === true ? " with an error result (isError)" : "";
  const size = a.truncated
    ? `first ${new TextEncoder().encode(a.excerpt).byteLength} of ${a.bytes} bytes, redacted`
    : `${a.bytes} bytes, redacted`;
  return (
    <div class="upstream">
      <dt>Upstream</dt>
      <dd>
        <strong>
          {said}
          {rpc}
          {isError}
        </strong>
        {a.status === null && a.excerpt === "" ? null : (
          <>
            <span class="muted"> ({size})</span>
            <pre>{a.excerpt === "" ? "(empty)" : a.excerpt}</pre>
          </>
        )}
      </dd>
    </div>
  );
}

function Approval(props: { approval: ApprovalView }) {
  const a = props.approval;
  return (
    <div class="approval">
      <dt>Approval</dt>
      <dd>
        <code>{a.approval_id}</code> (rule <code>{a.rule}</code>): <strong>{a.status}</strong>
        {a.decided_by === null ? null : (
          <>
            , decided by <code>{a.decided_by}</code>
            {a.decided_at === null ? null : ` at ${utcTime(a.decided_at)}`}
          </>
        )}
        {a.note === null || a.note === "" ? null : <> — “{a.note}”</>}
      </dd>
    </div>
  );
}

function Resolution(props: { escalation: EscalationView }) {
  const r = props.escalation.resolution;
  return (
    <div class="resolution">
      <dt>Escalation</dt>
      <dd>
        {r === null ? (
          <strong>open: waiting for a person</strong>
        ) : (
          <>
            <strong>{r.resolution === "closed" ? "closed" : "one retry allowed"}</strong> by{" "}
            <code>{r.actor}</code> at {utcTime(r.resolved_at)}
            {r.note === null || r.note === "" ? null : <> — “{r.note}”</>}
          </>
        )}
      </dd>
    </div>
  );
}

/** The fold under a call's row. */
export function CallDetail(props: { item: TimelineEntry; context: CallContext }) {
  const { entry, outcome, refusal } = props.item;
  const last = outcome ?? entry;
  const reason = last.reason;
  const approval =
    entry.approval_id === null ? undefined : props.context.approvals.get(entry.approval_id);
  const escalation =
    props.context.escalations.get(last.seq) ?? props.context.escalations.get(entry.seq);
  const principal = principalOf(entry);
  const notes = [entry, ...(outcome === null ? [] : [outcome])].filter(
    (e) => e.note !== null && e.note !== "",
  );
  return (
    <tr class="more">
      <td colspan={10}>
        <details>
          <summary>{reason === null ? "Details" : "Why, and what was received"}</summary>
          <dl class="detail">
            <dt>Decision</dt>
            <dd>{DECISION_WORDS[last.decision]}</dd>
            {reason === null ? null : (
              <>
                <dt>Reason</dt>
                <dd>
                  <strong>{DECISION_TABLE[reason].title}</strong> (<code>{reason}</code>)
                  {refusal?.reason === reason ? `: ${refusal.detail}` : null}
                </dd>
              </>
            )}
            {last.upstream === undefined ? null : <Upstream answer={last.upstream} />}
            {principal === null ? null : (
              <>
                <dt>Proposed by</dt>
                <dd>
                  <code>{principal}</code>
                </dd>
              </>
            )}
            {notes.map((e) => (
              <>
                <dt>Note (#{e.seq})</dt>
                <dd>
                  {e.note}
                  {e.actor === null ? null : <span class="muted"> — {e.actor}</span>}
                </dd>
              </>
            ))}
            {approval === undefined ? null : <Approval approval={approval} />}
            {escalation === undefined ? null : <Resolution escalation={escalation} />}
          </dl>
          <Issues item={props.item} reason={reason} />
          <p class="muted">
            Payload as received ({entry.content_type ?? "no Content-Type"}
            {entry.payload_truncated ? ", cut at the audit's cap" : ""}):
          </p>
          {entry.payload === "" ? (
            <p class="muted">(empty: nothing was sent with this entry)</p>
          ) : (
            <pre>{entry.payload}</pre>
          )}
        </details>
      </td>
    </tr>
  );
}
