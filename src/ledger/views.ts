import type { RunState } from "../core/admission.ts";
import type { Reason } from "../core/reasons.ts";
import type { AuditDecision, AuditEntry, BudgetView, CacheStatus, RunView } from "./protocol.ts";

/** The `run` row. */
export interface RunRow {
  [column: string]: SqlStorageValue;
  tenant: string;
  run_id: string;
  created_at: number;
  deadline_at: number;
  halted_at: number | null;
  halt_reason: string | null;
  mutations_used: number;
  paid_used: number;
  max_mutations: number;
  max_paid_calls: number;
}

/** An `audit` row. */
export interface AuditRow {
  [column: string]: SqlStorageValue;
  seq: number;
  call_id: string;
  at: number;
  tool: string | null;
  form: string | null;
  decision: string;
  reason: string | null;
  status: number | null;
  idempotency_key: string | null;
  fingerprint: string | null;
  cache: string | null;
  duration_ms: number | null;
  mutations_used: number;
  paid_used: number;
  content_type: string | null;
  payload: string;
  payload_truncated: number;
}

export function runState(run: RunRow): RunState {
  return {
    haltedAt: run.halted_at,
    deadlineAt: run.deadline_at,
    mutationsUsed: run.mutations_used,
    paidUsed: run.paid_used,
    maxMutations: run.max_mutations,
    maxPaidCalls: run.max_paid_calls,
  };
}

function counter(used: number, limit: number) {
  return { used, limit, left: Math.max(0, limit - used) };
}

export function budgetView(run: RunRow): BudgetView {
  return {
    mutations: counter(run.mutations_used, run.max_mutations),
    paid_calls: counter(run.paid_used, run.max_paid_calls),
  };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function runView(run: RunRow, now: number, decisions: Record<string, number>): RunView {
  const status = run.halted_at !== null ? "halted" : now >= run.deadline_at ? "expired" : "open";
  return {
    run_id: run.run_id,
    status,
    created_at: new Date(run.created_at).toISOString(),
    deadline_at: new Date(run.deadline_at).toISOString(),
    halted_at: isoOrNull(run.halted_at),
    halt_reason: run.halt_reason,
    budget: budgetView(run),
    decisions,
  };
}

export function auditEntry(row: AuditRow): AuditEntry {
  return {
    seq: row.seq,
    call_id: row.call_id,
    at: new Date(row.at).toISOString(),
    tool: row.tool,
    form: row.form,
    decision: row.decision as AuditDecision,
    reason: row.reason as Reason | null,
    status: row.status,
    idempotency_key: row.idempotency_key,
    fingerprint: row.fingerprint,
    cache: row.cache as CacheStatus | null,
    duration_ms: row.duration_ms,
    budget_after: { mutations: row.mutations_used, paid_calls: row.paid_used },
    content_type: row.content_type,
    payload: row.payload,
    payload_truncated: row.payload_truncated === 1,
  };
}
