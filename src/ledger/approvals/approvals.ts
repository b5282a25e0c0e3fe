/**
 * The RunLedger's approval rows: reading the latest approval of a call, opening one, and the
 * state changes an operator or a consuming call makes. Every function runs inside the
 * caller's `transactionSync`; the decisions themselves are the pure ones in core/approval.ts.
 */
import {
  type ApprovalRule,
  type ApprovalState,
  type ApprovalStatus,
  type Decider,
  deciderOf,
  decidersOf,
} from "../../core/approval.ts";
import type { AuditPrincipal } from "../../core/principal.ts";
import type { ApprovalView } from "./approval-types.ts";

/** An `approval` row. */
export interface ApprovalRow {
  [column: string]: SqlStorageValue;
  id: string;
  tool: string;
  fingerprint: string;
  policy_version: string;
  rule: string;
  args: string;
  idempotency_key: string | null;
  status: string;
  requested_at: number;
  requested_by_call: string;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  note: string | null;
  consumed_by_call: string | null;
  proposer: string | null;
  edited_args: string | null;
  edited_fingerprint: string | null;
  quorum: number;
  origin: string | null;
  expiry_unreported: number;
}

function stateOf(row: ApprovalRow): ApprovalState {
  return {
    id: row.id,
    status: row.status as ApprovalStatus,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    policyVersion: row.policy_version,
    note: row.note,
    rule: row.rule,
    editedFingerprint: row.edited_fingerprint,
    editedArgs: row.edited_args,
    expiryUnreported: row.expiry_unreported === 1,
  };
}

/**
 * The latest approval asked for this tool, payload and idempotency key (null for a call without
 * one), or approved for this payload as an approver's edit, or null: a grant admits the intent
 * the approver was shown, never another key's.
 */
export function latestApproval(
  sql: SqlStorage,
  tool: string,
  fingerprint: string,
  key: string | null,
): ApprovalState | null {
  const row = sql
    .exec<ApprovalRow>(
      // `IS` matches NULL with NULL: a call without a key has one grant per payload.
      `SELECT * FROM approval WHERE tool = ? AND (fingerprint = ? OR edited_fingerprint = ?)
         AND idempotency_key IS ?
       ORDER BY requested_at DESC, rowid DESC LIMIT 1`,
      tool,
      fingerprint,
      fingerprint,
      key,
    )
    .toArray()[0];
  return row === undefined ? null : stateOf(row);
}

/** The approval `id` with its state, or null when the run has none by that id. */
export function readApproval(
  sql: SqlStorage,
  id: string,
): { state: ApprovalState; row: ApprovalRow } | null {
  const row = sql.exec<ApprovalRow>("SELECT * FROM approval WHERE id = ?", id).toArray()[0];
  return row === undefined ? null : { state: stateOf(row), row };
}

/** What a new approval is opened with. */
export interface NewApproval {
  /** The call that asked. */
  callId: string;
  /** The tool it would run. */
  tool: string | null;
  /** Its payload fingerprint. */
  fingerprint: string | null;
  /** Its validated arguments, JSON text. */
  args: string;
  /** The mutation's key, or null. */
  key: string | null;
  /** The rule that asked. */
  rule: ApprovalRule;
  /** The policy version the grant will bind. */
  version: string;
  /** Epoch ms of the decision. */
  now: number;
  /** How long it waits for an operator. */
  ttlMs: number;
  /** Who proposed the call, RFC 8785 JSON of its principal. */
  proposer: string | null;
  /** The origin the call came to, for the links of its notifications. */
  origin?: string;
}

/** Open a pending approval; returns its id. */
export function openApproval(sql: SqlStorage, a: NewApproval): string {
  const id = `apr_${crypto.randomUUID().replaceAll("-", "")}`;
  sql.exec(
    `INSERT INTO approval (id, tool, fingerprint, policy_version, rule, args, idempotency_key,
       status, requested_at, requested_by_call, expires_at, proposer, quorum, origin)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
    id,
    a.tool,
    a.fingerprint,
    a.version,
    a.rule.name,
    a.args,
    a.key,
    a.now,
    a.callId,
    a.now + a.ttlMs,
    a.proposer,
    decidersOf(a.rule).quorum,
    a.origin ?? null,
  );
  return id;
}

/**
 * Who proposed the approval's call, as a decider (core/approval.ts): the person, or the key,
 * whose call it is, through an OAuth grant too; null when neither is known.
 */
export function proposerOf(row: ApprovalRow): Decider | null {
  if (row.proposer === null) return null;
  const p = JSON.parse(row.proposer) as AuditPrincipal;
  return p.kind === "person" || p.kind === "key" ? deciderOf(p, "") : null;
}

/** One approval of a pending approval, by a decider (`decider` id: core/approval.ts). */
export interface Vote {
  decider: string;
  actor: string;
  at: number;
}

/** The approvals given so far to the approval's current arguments, oldest first. */
export function votesOf(sql: SqlStorage, id: string): Vote[] {
  return sql
    .exec<{ decider: string; actor: string; at: number }>(
      "SELECT decider, actor, at FROM approval_vote WHERE approval_id = ? ORDER BY at, decider",
      id,
    )
    .toArray()
    .map((r) => ({ decider: r.decider, actor: r.actor, at: r.at }));
}

/** Record one decider's approval. */
export function addVote(sql: SqlStorage, id: string, vote: Vote): void {
  sql.exec(
    "INSERT INTO approval_vote (approval_id, decider, actor, at) VALUES (?, ?, ?, ?)",
    id,
    vote.decider,
    vote.actor,
    vote.at,
  );
}

/**
 * An approver's edit of the arguments: the grant will bind the edited payload, and the
 * approvals given so far, to the arguments before it, no longer count.
 */
export function editApproval(
  sql: SqlStorage,
  id: string,
  edit: { args: string; fingerprint: string },
): void {
  sql.exec(
    "UPDATE approval SET edited_args = ?, edited_fingerprint = ? WHERE id = ? AND status = 'pending'",
    edit.args,
    edit.fingerprint,
    id,
  );
  sql.exec("DELETE FROM approval_vote WHERE approval_id = ?", id);
}

/** Approvals of the run that wait for a person at `now` (pending, not expired). */
export function pendingApprovals(sql: SqlStorage, now: number): number {
  return sql
    .exec<{ n: number }>(
      "SELECT count(*) AS n FROM approval WHERE status = 'pending' AND expires_at > ?",
      now,
    )
    .one().n;
}

/** Mark an approval expired (it was reported so; the next proposal asks anew). */
export function expireApproval(sql: SqlStorage, id: string): void {
  sql.exec("UPDATE approval SET status = 'expired', expiry_unreported = 0 WHERE id = ?", id);
}

/** Spend a grant on the call it admits: single use, in the admitting transaction. */
export function consumeApproval(sql: SqlStorage, id: string, callId: string): void {
  sql.exec(
    "UPDATE approval SET status = 'consumed', consumed_by_call = ? WHERE id = ? AND status = 'approved'",
    callId,
    id,
  );
}

/**
 * Give back the grant a call spent, which never ran (its run took it back): approved again,
 * as before the call. A run that never had an approval has no table of them.
 */
export function returnApproval(sql: SqlStorage, callId: string): void {
  sql.exec(
    "UPDATE approval SET status = 'approved', consumed_by_call = NULL WHERE consumed_by_call = ? AND status = 'consumed'",
    callId,
  );
}

/** What an operator decided. */
export interface Decided {
  /** `approved` or `denied`. */
  status: "approved" | "denied";
  /** Who. */
  actor: string;
  /** Why. */
  note: string;
  /** When. */
  now: number;
  /** A grant is usable this long after it is approved. */
  ttlMs: number;
}

/** Record an operator's decision; an approval restarts its clock as a grant. */
export function decideApproval(sql: SqlStorage, id: string, d: Decided): ApprovalRow {
  return sql
    .exec<ApprovalRow>(
      `UPDATE approval SET status = ?, decided_at = ?, decided_by = ?, note = ?,
         expires_at = CASE WHEN ? = 'approved' THEN ? ELSE expires_at END
       WHERE id = ? AND status = 'pending' RETURNING *`,
      d.status,
      d.now,
      d.actor,
      d.note,
      d.status,
      d.now + d.ttlMs,
      id,
    )
    .one();
}

/** The run's approvals, oldest first, optionally only those of one status. */
export function listApprovals(
  sql: SqlStorage,
  runId: string,
  status: ApprovalStatus | null,
  now: number,
): ApprovalView[] {
  // Every vote of the run in one read, not one read per approval.
  const votes = new Map<string, Vote[]>();
  const all = sql.exec<{ approval_id: string; decider: string; actor: string; at: number }>(
    "SELECT approval_id, decider, actor, at FROM approval_vote ORDER BY at, decider",
  );
  for (const { approval_id, decider, actor, at } of all) {
    const vote = { decider, actor, at };
    const of = votes.get(approval_id);
    if (of === undefined) votes.set(approval_id, [vote]);
    else of.push(vote);
  }
  const rows = sql
    .exec<ApprovalRow>("SELECT * FROM approval ORDER BY requested_at, rowid")
    .toArray()
    .map((row) => approvalView(runId, row, now, votes.get(row.id) ?? []));
  return status === null ? rows : rows.filter((a) => a.status === status);
}

/** The approval `id` as `listApprovals` shows it, or null when the run has none by that id. */
export function oneApproval(
  sql: SqlStorage,
  runId: string,
  id: string,
  now: number,
): ApprovalView | null {
  const found = readApproval(sql, id);
  return found === null ? null : approvalView(runId, found.row, now, votesOf(sql, id));
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** An approval row as published; one past its expiry reads as expired. */
export function approvalView(
  runId: string,
  row: ApprovalRow,
  now: number,
  votes: readonly Vote[],
): ApprovalView {
  const lapsed = (row.status === "pending" || row.status === "approved") && now >= row.expires_at;
  return {
    approval_id: row.id,
    run_id: runId,
    tool: row.tool,
    rule: row.rule,
    status: lapsed ? "expired" : (row.status as ApprovalStatus),
    args: row.args,
    fingerprint: row.fingerprint,
    policy_version: row.policy_version,
    idempotency_key: row.idempotency_key,
    requested_at: new Date(row.requested_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
    decided_at: iso(row.decided_at),
    decided_by: row.decided_by,
    note: row.note,
    consumed_by_call: row.consumed_by_call,
    edited_args: row.edited_args,
    edited_fingerprint: row.edited_fingerprint,
    quorum: row.quorum,
    approvals: votes.map((v) => ({ by: v.actor, at: new Date(v.at).toISOString() })),
  };
}
