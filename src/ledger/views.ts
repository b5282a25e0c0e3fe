/**
 * Rows as the API publishes them: the run's status, its budget and its audit entries.
 */
import type { RunState } from "../core/admission.ts";
import type { RunLimits } from "../core/limits.ts";
import type { AuditPrincipal } from "../core/principal.ts";
import type { Reason } from "../core/reasons.ts";
import type { UpstreamAnswer } from "../core/shapes/audit.ts";
import type {
  AuditDecision,
  AuditEntry,
  BudgetView,
  CacheStatus,
  LimitsView,
  RunView,
} from "./protocol.ts";
import { countedRefusals } from "./run/refusal-keep.ts";

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
  allowed_tools: string | null;
  tool_caps: string | null;
  opened_by: string | null;
  indexed_at: number | null;
  /** Refusals counted past the audit's entry cap, a JSON object by reason (refusal-keep.ts). */
  refusals_counted: string | null;
  /** 1 when the run was created under local development (src/ledger/audit/signing-key.ts). */
  local: number;
}

/** An `audit` row as the ledger drafts it: every column but its seq, time and chain. */
export interface EntryDraft {
  [column: string]: SqlStorageValue;
  call_id: string;
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
  /** For a pending entry: its lease, after which it may be settled as abandoned. */
  lease_expires_at: number | null;
  approval_id: string | null;
  actor: string | null;
  note: string | null;
  resolves: number | null;
  /** Uses of its tool the entry adds (an admission charged 1, its withdrawal -1), or null. */
  uses: number | null;
  /** Who the entry's act is by, RFC 8785 JSON; null only for entries written before it was kept. */
  principal: string | null;
  /** What the tool answered, for an outcome its answer decided: UpstreamAnswer as JSON, or null. */
  upstream: string | null;
}

/** An `audit` row. */
export interface AuditRow extends EntryDraft {
  seq: number;
  at: number;
  of: number | null;
  prev: string | null;
  hash: string | null;
}

/**
 * The run's effective limits as stored in its row; a run created before the row held
 * them (NULL columns) keeps the policy's tool list and caps, `fallback`.
 */
export function limitsOf(run: RunRow, fallback: RunLimits): RunLimits {
  return {
    allowed_tools: run.allowed_tools === null ? null : (JSON.parse(run.allowed_tools) as string[]),
    max_mutations: run.max_mutations,
    max_paid_calls: run.max_paid_calls,
    deadline_ms: run.deadline_at - run.created_at,
    tool_caps:
      run.tool_caps === null
        ? fallback.tool_caps
        : (JSON.parse(run.tool_caps) as Record<string, number>),
  };
}

/** The limits as published: per-tool caps in the same shape the policy writes them. */
function limitsView(limits: RunLimits, policyTools: readonly string[]): LimitsView {
  const tools: LimitsView["tools"] = {};
  for (const [tool, max] of Object.entries(limits.tool_caps))
    tools[tool] = { max_calls_per_run: max };
  return {
    allowed_tools: [...(limits.allowed_tools ?? policyTools)],
    max_mutations: limits.max_mutations,
    max_paid_calls: limits.max_paid_calls,
    deadline_ms: limits.deadline_ms,
    tools,
  };
}

export function runState(run: RunRow, limits: RunLimits): RunState {
  return {
    allowedTools: limits.allowed_tools,
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

/** The budget of a run not created yet: nothing used of `limits`. */
export function unusedBudget(limits: RunLimits): BudgetView {
  return {
    mutations: counter(0, limits.max_mutations),
    paid_calls: counter(0, limits.max_paid_calls),
  };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** What `GET /v1/runs/{id}` shows besides the row itself. */
export interface RunExtras {
  /** The run's effective limits. */
  limits: RunLimits;
  /** The policy's tools, shown when the run allows all of them. */
  policyTools: readonly string[];
  /** Audit entries per decision. */
  decisions: Record<string, number>;
  /** Calls charged per tool. */
  toolCalls: Record<string, number>;
}

export function runView(run: RunRow, now: number, extras: RunExtras): RunView {
  const status = run.halted_at !== null ? "halted" : now >= run.deadline_at ? "expired" : "open";
  return {
    run_id: run.run_id,
    status,
    created_at: new Date(run.created_at).toISOString(),
    deadline_at: new Date(run.deadline_at).toISOString(),
    halted_at: isoOrNull(run.halted_at),
    halt_reason: run.halt_reason,
    budget: budgetView(run),
    limits: limitsView(extras.limits, extras.policyTools),
    tool_calls: extras.toolCalls,
    decisions: extras.decisions,
    refusals_counted: countedRefusals(run),
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
    approval_id: row.approval_id ?? null,
    actor: row.actor ?? null,
    note: row.note ?? null,
    resolves: row.resolves ?? null,
    // Absent, not null, on an entry written before principals were kept: its hash stays as made.
    ...(row.principal == null ? {} : { principal: JSON.parse(row.principal) as AuditPrincipal }),
    // Absent on an entry no answer of the tool decided, and on those written before it was kept.
    ...(row.upstream == null ? {} : { upstream: JSON.parse(row.upstream) as UpstreamAnswer }),
    of: row.of ?? null,
    prev: row.prev ?? "",
    hash: row.hash ?? "",
  };
}
