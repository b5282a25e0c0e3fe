/**
 * The tenant's index of approvals, kept by its TenantIndex so an operator can list what
 * waits across runs without knowing them. The index follows the runs: each run's RunLedger
 * holds the approval and decides it, and the worker notes each new approval and each decision
 * here after the run's own step. A worker that dies in between leaves the index behind the
 * run, never ahead of it: the run's list is the authority.
 */
import type { ApprovalStatus } from "../../core/approval.ts";
import type { ApprovalIndexEntry } from "../../core/shapes/approval.ts";

/** One approval as the tenant's index lists it. */
export type { ApprovalIndexEntry };

interface IndexRow {
  [column: string]: SqlStorageValue;
  approval_id: string;
  run_id: string;
  tool: string;
  rule: string;
  status: string;
  requested_at: number;
  expires_at: number;
}

/** Note an approval (new, or its new state); the first noting of an id fixes its run. */
export function noteApproval(sql: SqlStorage, e: ApprovalIndexEntry): void {
  sql.exec(
    `INSERT INTO approval_index (approval_id, run_id, tool, rule, status, requested_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (approval_id) DO UPDATE SET status = excluded.status, expires_at = excluded.expires_at`,
    e.approval_id,
    e.run_id,
    e.tool,
    e.rule,
    e.status,
    Date.parse(e.requested_at),
    Date.parse(e.expires_at),
  );
}

/** The policy's caps on a tenant's approvals. */
export interface ApprovalCaps {
  /** Most approvals of the tenant pending at once. */
  pending: number;
  /** Most webhook pages in a minute. */
  pagesPerMinute: number;
}

/** Whether a new approval may wait (and is paged), or the cap it met. */
export type ApprovalAdmission =
  | { ok: true; page: boolean }
  | { ok: false; pending: number; max: number };

/** The window the webhook's pages are counted in. */
const PAGE_WINDOW_MS = 60_000;

/**
 * Index a new approval unless the tenant already has as many pending as the policy allows; page
 * it unless the webhook had its pages this minute. An approval noted already is let be.
 */
export function admitApproval(
  sql: SqlStorage,
  e: ApprovalIndexEntry,
  caps: ApprovalCaps,
  now: number,
): ApprovalAdmission {
  const count = (where: string, at: number) =>
    sql.exec<{ n: number }>(`SELECT count(*) AS n FROM approval_index WHERE ${where}`, at).one().n;
  const known = sql.exec("SELECT 1 FROM approval_index WHERE approval_id = ?", e.approval_id);
  if (known.toArray().length > 0) return { ok: true, page: false };
  const pending = count(WHERE.pending, now);
  if (pending >= caps.pending) return { ok: false, pending, max: caps.pending };
  const page = count("paged = 1 AND requested_at > ?", now - PAGE_WINDOW_MS) < caps.pagesPerMinute;
  noteApproval(sql, e);
  if (page) sql.exec("UPDATE approval_index SET paged = 1 WHERE approval_id = ?", e.approval_id);
  return { ok: true, page };
}

/** Note an approval's new status (a grant spent by the call it admitted). */
export function markApproval(sql: SqlStorage, id: string, status: ApprovalStatus): void {
  sql.exec("UPDATE approval_index SET status = ? WHERE approval_id = ?", status, id);
}

/** Which rows hold approvals of each published status as of `now` (a `?` is `now`). */
const WHERE: Readonly<Record<ApprovalStatus, string>> = {
  pending: "status = 'pending' AND expires_at > ?",
  approved: "status = 'approved' AND expires_at > ?",
  denied: "status = 'denied'",
  consumed: "status = 'consumed'",
  // A pending approval or a grant past its time reads as expired before anyone notes it.
  expired: "(status = 'expired' OR (status IN ('pending', 'approved') AND expires_at <= ?))",
};

/** The tenant's approvals, oldest first, or only those of `status` as of `now`. */
export function indexedApprovals(
  sql: SqlStorage,
  status: ApprovalStatus | null,
  now: number,
  limit: number,
): ApprovalIndexEntry[] {
  const where = status === null ? "1" : WHERE[status];
  const params = where.includes("?") ? [now, limit] : [limit];
  return sql
    .exec<IndexRow>(
      `SELECT * FROM approval_index WHERE ${where} ORDER BY requested_at LIMIT ?`,
      ...params,
    )
    .toArray()
    .map((r) => entryOf(r, now));
}

function entryOf(r: IndexRow, now: number): ApprovalIndexEntry {
  const live = r.status === "pending" || r.status === "approved";
  return {
    approval_id: r.approval_id,
    run_id: r.run_id,
    tool: r.tool,
    rule: r.rule,
    status: live && now >= r.expires_at ? "expired" : (r.status as ApprovalStatus),
    requested_at: new Date(r.requested_at).toISOString(),
    expires_at: new Date(r.expires_at).toISOString(),
  };
}
