/**
 * An audit entry as the ledger's steps draft it (the call's words: call id, key, evidence),
 * and the row it becomes in the log.
 */

import type { AuditDecision, Evidence } from "../protocol.ts";
import type { RunRow } from "../views.ts";
import type { EntryDraft } from "./audit-log.ts";

/** Columns of an audit row written in one step. */
export interface AuditDraft {
  callId: string;
  tool: string | null;
  form: string | null;
  decision: AuditDecision;
  reason: string | null;
  status: number | null;
  key: string | null;
  fingerprint: string | null;
  cache: string | null;
  durationMs: number | null;
  evidence: Evidence;
  /** For a pending entry: when the alarm may settle it as abandoned. */
  leaseExpiresAt?: number;
  /** The approval the entry asks for, decides or uses. */
  approvalId?: string | null;
  /** Who acted, for an operator's entry. */
  actor?: string | null;
  /** The operator's note. */
  note?: string | null;
  /** The escalation (its seq) this entry resolves. */
  resolves?: number | null;
  /** Uses of its tool the entry adds: 1 for a call charged to it (usage.ts). */
  uses?: number | null;
  /** Who the act is by, RFC 8785 JSON; unset, the ledger's method names its caller's. */
  principal?: string | null;
  /** What the tool answered, UpstreamAnswer as JSON, for an outcome its answer decided. */
  upstream?: string | null;
}

/** The log's row for a draft; `run` is the row after the decision, for the budget after. */
export function entryOf(d: AuditDraft, run: RunRow): EntryDraft {
  return {
    call_id: d.callId,
    tool: d.tool,
    form: d.form,
    decision: d.decision,
    reason: d.reason,
    status: d.status,
    idempotency_key: d.key,
    fingerprint: d.fingerprint,
    cache: d.cache,
    duration_ms: d.durationMs,
    mutations_used: run.mutations_used,
    paid_used: run.paid_used,
    content_type: d.evidence.contentType,
    payload: d.evidence.payload,
    payload_truncated: d.evidence.truncated ? 1 : 0,
    lease_expires_at: d.leaseExpiresAt ?? null,
    approval_id: d.approvalId ?? null,
    actor: d.actor ?? null,
    note: d.note ?? null,
    resolves: d.resolves ?? null,
    uses: d.uses ?? null,
    principal: d.principal ?? null,
    upstream: d.upstream ?? null,
  };
}
