/**
 * What an operator does to a run, inside the RunLedger's transaction: halt it, decide an
 * approval, resolve an escalation. Each step writes its audit entry through the ledger's one append
 * function, passed in, so the operator's entries sit in the same log as the calls'.
 */
import {
  type ApprovalRule,
  decidable,
  deciderOf,
  mayDecide,
  type OperatorDecision,
} from "../../core/approval.ts";
import { approvalRulesOf, type Fence } from "../../core/policy.ts";
import { refuse } from "../../core/reasons.ts";
import type {
  DecideAnswer,
  EscalationFilter,
  EscalationView,
  OperatorAct,
  Resolution,
  ResolveAnswer,
} from "../approvals/approval-types.ts";
import {
  addVote,
  approvalView,
  decideApproval,
  editApproval,
  proposerOf,
  readApproval,
  votesOf,
} from "../approvals/approvals.ts";
import type { AuditDraft } from "../audit/audit-draft.ts";
import { type AuditRow, auditEntry, type RunRow } from "../views.ts";
import type { InFlightCall } from "./halt-types.ts";
import { haltRun } from "./run-row.ts";

/** Append an audit entry (the RunLedger's own function). */
export type Append = (draft: AuditDraft, run: RunRow) => void;

/** The run a step acts on, with the ledger's storage and append, inside its transaction. */
export interface LedgerScope {
  /** The ledger's SQL storage. */
  sql: SqlStorage;
  /** The ledger's one append function. */
  append: Append;
  /** The seq of the log's last entry (0 when it has none). */
  lastSeq: () => number;
  /** The run's row. */
  run: RunRow;
  /** Epoch ms of the act. */
  now: number;
  /** The contracts and policy the ledger decides with: the worker's own (src/worker.ts). */
  fence: Fence;
  /** Who the step's entries are by, RFC 8785 JSON of their principal. */
  principal?: string;
}

function operatorDraft(act: OperatorAct, fields: Partial<AuditDraft>): AuditDraft {
  return {
    callId: crypto.randomUUID(),
    tool: null,
    form: "operator",
    decision: "approved",
    reason: null,
    status: 200,
    key: null,
    fingerprint: null,
    cache: null,
    durationMs: null,
    evidence: act.evidence,
    actor: act.actor,
    note: act.note,
    ...fields,
  };
}

/**
 * Throw the run's kill switch, once: the run's row keeps the first halt's time and reason, and
 * the halt is an entry of the log, with its actor and reason (the act's note). Answers the row
 * as it stands and the calls still in flight, whose outcomes will settle after the halt
 * (settle.ts marks them). A run halted already is left as it was, with no second entry.
 */
export function halt(s: LedgerScope, act: OperatorAct): { run: RunRow; inFlight: InFlightCall[] } {
  const halted = haltRun(s.sql, s.now, act.note);
  if (halted !== null) s.append(operatorDraft(act, { decision: "halted" }), halted);
  return { run: halted ?? s.run, inFlight: inFlight(s.sql) };
}

/**
 * An operator's act on a tool, outside any call (accepting an MCP tool's new pin): an entry of
 * the log with the tool, the actor and the note.
 */
export function recordAct(s: LedgerScope, tool: string, act: OperatorAct): RunRow {
  s.append(operatorDraft(act, { tool, decision: "pin_accepted" }), s.run);
  return s.run;
}

/** The calls admitted and not yet settled, oldest first. */
function inFlight(sql: SqlStorage): InFlightCall[] {
  return sql
    .exec<{ seq: number; call_id: string; tool: string | null; at: number }>(
      "SELECT a.seq, a.call_id, a.tool, a.at FROM open_call o JOIN audit a ON a.seq = o.seq ORDER BY a.seq",
    )
    .toArray()
    .map((r) => ({
      call_id: r.call_id,
      tool: r.tool,
      seq: r.seq,
      admitted_at: new Date(r.at).toISOString(),
    }));
}

/** An approver's edit of a call's arguments, checked at the edge against the tool's contract. */
export interface ApprovalEdit {
  /** The edited arguments, validated, JSON text. */
  args: string;
  /** Their payload fingerprint, as the call path computes it. */
  fingerprint: string;
}

/**
 * Approve or deny a pending approval. The rule that asked says who may decide, how many
 * distinct approvals make the grant (`quorum`) and whether the proposer may approve; one denial
 * denies. An approval may carry an edit of the arguments: the grant then binds the edited
 * payload, and the approvals given before it no longer count. `ttlMs` is the grant's life.
 */
export function decide(
  s: LedgerScope,
  id: string,
  decision: OperatorDecision,
  act: OperatorAct,
  ttlMs: number,
  edit?: ApprovalEdit,
): DecideAnswer {
  const found = readApproval(s.sql, id);
  if (found === null) {
    return { kind: "refuse", refusal: refuse("not_found", `Run has no approval ${id}.`) };
  }
  const refusal = decidable(found.state, s.now);
  if (refusal !== null) return { kind: "refuse", refusal };
  const { row } = found;
  const decider = deciderOf(act.principal, act.actor);
  const not = mayDecide(ruleOf(s.fence, row.tool, row.rule), decider, proposerOf(row), id);
  if (not !== null) return { kind: "refuse", refusal: not };
  const mine = votesOf(s.sql, id).some((vote) => vote.decider === decider.id);
  if (decision === "approve" && edit === undefined && mine) {
    const detail = `You already approved ${id}; ${row.quorum} distinct approvers must.`;
    return { kind: "refuse", refusal: refuse("approval_already_decided_by_you", detail) };
  }
  if (decision === "approve") {
    if (edit !== undefined) editApproval(s.sql, id, edit);
    addVote(s.sql, id, { decider: decider.id, actor: act.actor, at: s.now });
  }
  const votes = votesOf(s.sql, id);
  const final = decision === "deny" || votes.length >= row.quorum;
  const status = decision === "approve" ? "approved" : "denied";
  const after = final
    ? decideApproval(s.sql, id, { status, actor: act.actor, note: act.note, now: s.now, ttlMs })
    : (readApproval(s.sql, id)?.row ?? row);
  const evidence =
    edit === undefined ? act.evidence : editEvidence(act, row.args, edit.args, decision);
  s.append(
    operatorDraft(act, {
      decision: final ? status : "approval_vote",
      tool: after.tool,
      key: after.idempotency_key,
      fingerprint: after.edited_fingerprint ?? after.fingerprint,
      approvalId: id,
      evidence,
    }),
    s.run,
  );
  return { kind: "decided", approval: approvalView(s.run.run_id, after, s.now, votes) };
}

/** The rule an approval was asked under; gone from the policy, the default deciders decide. */
export function ruleOf(fence: Fence, tool: string, name: string): ApprovalRule {
  return approvalRulesOf(fence, tool).find((r) => r.name === name) ?? { name, always: true };
}

/**
 * What the audit keeps of an approval with an edit: the decision, the note, the arguments as
 * proposed (`original_args`, in their audit form) and as edited (`args`).
 */
function editEvidence(
  act: OperatorAct,
  original: string,
  edited: string,
  decision: OperatorDecision,
): OperatorAct["evidence"] {
  const payload = `{"decision":${JSON.stringify(decision)},"note":${JSON.stringify(act.note)},"original_args":${original},"args":${edited}}`;
  return { contentType: "application/json", payload, truncated: false };
}

interface EscalationRow extends AuditRow {
  resolution: string | null;
  resolution_note: string | null;
  resolution_actor: string | null;
  resolved_at: number | null;
}

/** The escalations, each joined with its resolution. */
const ESCALATIONS = `SELECT a.*, r.resolution, r.note AS resolution_note,
    r.actor AS resolution_actor, r.resolved_at
  FROM audit a LEFT JOIN escalation_resolution r ON r.seq = a.seq
  WHERE a.decision = 'escalate'`;

/**
 * An escalation is usually an outcome entry, which does not repeat the call's payload: the
 * work list shows it from the call's first entry (the one the outcome is `of`).
 */
function withPayload(sql: SqlStorage, row: EscalationRow): EscalationRow {
  if (row.of === null) return row;
  const first = sql
    .exec<{ content_type: string | null; payload: string; payload_truncated: number }>(
      "SELECT content_type, payload, payload_truncated FROM audit WHERE seq = ?",
      row.of,
    )
    .toArray()[0];
  return first === undefined ? row : { ...row, ...first };
}

function escalationView(row: EscalationRow): EscalationView {
  const resolution =
    row.resolution === null
      ? null
      : {
          resolution: row.resolution as Resolution,
          note: row.resolution_note,
          actor: row.resolution_actor ?? "",
          resolved_at: new Date(row.resolved_at ?? 0).toISOString(),
        };
  return { ...auditEntry(row), resolution };
}

/** Escalated calls after `after`, oldest first: open ones, resolved ones, or all. */
export function listEscalations(
  sql: SqlStorage,
  filter: EscalationFilter,
  after: number,
  limit: number,
): EscalationView[] {
  const which =
    filter === "open"
      ? " AND r.seq IS NULL"
      : filter === "resolved"
        ? " AND r.seq IS NOT NULL"
        : "";
  return sql
    .exec<EscalationRow>(
      `${ESCALATIONS}${which} AND a.seq > ? ORDER BY a.seq LIMIT ?`,
      after,
      limit,
    )
    .toArray()
    .map((row) => escalationView(withPayload(sql, row)));
}

/**
 * Resolve an escalation, once. `retry_allowed` hands the escalated call's idempotency key
 * back as retryable, so the same key runs again, once (its next outcome is final again);
 * `closed` leaves the key's stored answer final.
 */
export function resolve(
  s: LedgerScope,
  seq: number,
  resolution: Resolution,
  act: OperatorAct,
): ResolveAnswer {
  const row = s.sql.exec<EscalationRow>(`${ESCALATIONS} AND a.seq = ?`, seq).toArray()[0];
  if (row === undefined) {
    return { kind: "refuse", refusal: refuse("not_found", `Run has no escalation ${seq}.`) };
  }
  if (row.resolution !== null) {
    const detail = `Escalation ${seq} was already resolved (${row.resolution}).`;
    return { kind: "refuse", refusal: refuse("escalation_already_resolved", detail) };
  }
  s.sql.exec(
    "INSERT INTO escalation_resolution (seq, resolution, note, actor, resolved_at) VALUES (?, ?, ?, ?, ?)",
    seq,
    resolution,
    act.note,
    act.actor,
    s.now,
  );
  if (resolution === "retry_allowed" && row.idempotency_key !== null) {
    s.sql.exec(
      "UPDATE idempotency_key SET phase = 'retryable' WHERE key = ? AND call_id = ? AND phase = 'done'",
      row.idempotency_key,
      row.call_id,
    );
  }
  s.append(
    operatorDraft(act, {
      decision: resolution === "retry_allowed" ? "escalation_retry_allowed" : "escalation_closed",
      tool: row.tool,
      key: row.idempotency_key,
      fingerprint: row.fingerprint,
      resolves: seq,
    }),
    s.run,
  );
  const resolved = s.sql.exec<EscalationRow>(`${ESCALATIONS} AND a.seq = ?`, seq).one();
  return { kind: "resolved", escalation: escalationView(resolved) };
}
