/**
 * The RunLedger's, TargetClaims' and TenantIndex's RPC protocol: what the worker sends and what
 * it gets back. What the API publishes of a run (its budget, status, audit entries) is
 * inferred from the wire shapes of `src/core/shapes/`, so the ledger and the wire cannot drift
 * apart.
 */
import type { Charge, Proposal } from "../core/admission.ts";
import type { Effect } from "../core/contract.ts";
import type { AuditPrincipal } from "../core/principal.ts";
import type { Reason, Refusal, Verdict } from "../core/reasons.ts";
import type { CacheStatus } from "../core/shapes/audit.ts";
import type { Budget } from "../core/shapes/budget.ts";
import type { RunView } from "../core/shapes/run.ts";

export type { AuditDecision, AuditEntry, CacheStatus } from "../core/shapes/audit.ts";
export type { Counter } from "../core/shapes/budget.ts";
export type { LimitsView, RunView } from "../core/shapes/run.ts";

/** Which run a ledger call is about; the object's name is `${tenant}/${runId}`. */
export interface RunRef {
  /** Tenant that owns the run. */
  tenant: string;
  /** The run id as the agent sent it. */
  runId: string;
  /**
   * Who is calling: the caller's key id, or `development` for the development key. Recorded
   * as the run's opener by the call that creates the run.
   */
  by?: string;
  /** Who is calling, as the audit entries this call appends name them (src/core/principal.ts). */
  principal?: AuditPrincipal;
  /**
   * Whether the request came to a local `wrangler dev` (src/http/local-dev.ts). Stored with
   * the run when it is created: the alarm, which has no request, signs the archive of such a
   * run with the development key when no secret is set.
   */
  local?: boolean;
}

/** The run's side-effect budget as published in every answer. */
export type BudgetView = Budget;

/** The request as received, kept in the audit so it can be replayed. */
export interface Evidence {
  /** Content-Type header as sent. */
  contentType: string | null;
  /** The body text, capped in size. */
  payload: string;
  /** Whether `payload` was cut at the cap. */
  truncated: boolean;
}

/** A call refused before it reached the run's ledger rules (parse or contract gate). */
export interface Rejection {
  /** Unique id of the call. */
  callId: string;
  /** Tool name when it could be read. */
  tool: string | null;
  /** Body form when it could be read. */
  form: string | null;
  /** The idempotency key when it could be read. */
  key: string | null;
  /** Why it was refused. */
  refusal: Refusal;
  /** What was received. */
  evidence: Evidence;
}

/** What the ledger recorded of a call refused before the run's rules. */
export interface Recorded {
  /** The run's budget. */
  budget: BudgetView;
  /** The refusal recorded: the gate's, or the run's own when it ended or was refused a start. */
  refusal: Refusal;
}

/** The final outcome of a call that ran (or was served from the cache). */
export interface Outcome {
  /** Decision to record and answer with. */
  decision: "applied" | "cached" | Verdict;
  /** Reason code for a non-applied outcome. */
  reason: Reason | null;
  /** HTTP status of the answer. */
  status: number;
  /** The answer's JSON body, stored for replay. */
  body: string;
  /** Cache status, for reads. */
  cache: CacheStatus | null;
  /** What the result rules did to the answer, for its audit entry (rule, action, path). */
  note?: string | null;
  /**
   * What the tool answered, for a failure or escalation its answer decided: the redacted,
   * bounded UpstreamAnswer as JSON (src/core/upstream-excerpt.ts), kept on the outcome's entry.
   */
  upstream?: string | null;
}

/** A call that passed the contract gate, for the ledger to decide (with its `timeoutMs`). */
export interface LedgerProposal extends Pick<Proposal, "timeoutMs"> {
  /** Unique id of the call. */
  callId: string;
  /** Exact tool name. */
  tool: string;
  /** Body form. */
  form: string;
  /** Read or mutate. */
  effect: Effect;
  /** Charged to `max_paid_calls` (false for free tools and cache hits). */
  paid: boolean;
  /** The agent's idempotency key, or null. */
  key: string | null;
  /**
   * Whether the tool's upstream honours the key (the contract's `upstream.idempotent`): only
   * then is a mutation whose worker died mid-call sent again under it. Unset: it does not.
   */
  upstreamIdempotent?: boolean;
  /** SHA-256 of the canonical call. */
  fingerprint: string;
  /** The value of the argument the tool's per-target rule counts by, or null. */
  target: string | null;
  /** How long the key stays `in_flight` before it is presumed abandoned. */
  leaseMs: number;
  /** The validated arguments as JSON text: approval rules read them, and a grant shows them. */
  args: string;
  /**
   * The arguments as the fence keeps them: `args` with each field the contract marks
   * sensitive replaced by its digest (src/core/redact.ts); `args` when it marks none.
   * Approvals store and show these.
   */
  auditArgs?: string;
  /** The origin the call came to (`https://fence.example.com`): an approval's links use it. */
  origin?: string;
  /** Set when the answer is already known (a cache hit): recorded in the same step. */
  outcome: Outcome | null;
  /** What was received. */
  evidence: Evidence;
}

/** The ledger's answer to a proposal. */
export type LedgerAnswer =
  | {
      kind: "admit";
      budget: BudgetView;
      deadlineAt: number;
      approvalId: string | null;
      /** What the admission charged (nothing for a retry of an intent charged before). */
      charge: Charge;
    }
  | { kind: "replay"; status: number; body: string; budget: BudgetView }
  | { kind: "approval"; approval: ApprovalTicket; budget: BudgetView }
  | {
      kind: "refuse";
      refusal: Refusal;
      budget: BudgetView;
      approvalId?: string;
      /** The arguments an approver edited the call to (JSON text): propose those instead. */
      editedArgs?: string;
      /**
       * Set when this proposal expired a pending approval whose deadline had passed before the
       * run's alarm rang: how long it waited for a person, in milliseconds.
       */
      expiredAfterMs?: number;
    };

/** One input round of an admitted call whose tool asked the client for input (run/rounds.ts). */
export interface RoundStep {
  /** The admitted call. */
  callId: string;
  /** The round, counted from 1. */
  round: number;
  /** How long the call (and its key) stays held from now. */
  leaseMs: number;
}

/** The ledger's answer to a round's continuation: the run's budget, and a refusal if any. */
export interface RoundAnswer {
  /** The run's budget. */
  budget: BudgetView;
  /** When the run's deadline falls (ms since the epoch). */
  deadlineAt: number;
  /** Why the round does not continue, or null when it does. */
  refusal: Refusal | null;
}

/** Closing a call the ledger admitted. */
export interface Settlement {
  /** The admitted call. */
  callId: string;
  /** Its idempotency key, or null. */
  key: string | null;
  /** Whether the tool reads or mutates: a read that settles after a halt is not answered. */
  effect: "read" | "mutate";
  /** What happened. */
  outcome: Outcome;
  /** Wall-clock ms from receipt to outcome. */
  durationMs: number;
}

/** Taking back an admitted call that must not run: its tenant-wide claim was refused. */
export interface Withdrawal
  extends Omit<Settlement, "outcome" | "effect">,
    Pick<LedgerProposal, "target"> {
  /** What its admission charged (the admit answer's). */
  charge: Charge;
  /** Why it must not run. */
  refusal: Refusal;
}

/** A run's status, when it last recorded a call and what waits: a row of the console's run list. */
export interface RunSummary extends RunView {
  /** When the run's newest audit entry was recorded (its creation when it has none). */
  last_activity_at: string;
  /** Escalated calls no operator has resolved yet. */
  open_escalations: number;
  /** Approvals waiting for an operator's decision (and not yet expired). */
  pending_approvals: number;
}

/** What `open` answers: the run, or why its limits were refused. */
export type OpenAnswer =
  | { kind: "opened"; created: boolean; view: RunView }
  | { kind: "refuse"; refusal: Refusal; field: string | null };

/** A claim on a target whose cap spans every run of a tenant (a TargetClaims object). */
export interface TargetClaim {
  /** Exact tool name. */
  tool: string;
  /** The argument the rule counts by, for the refusal's detail. */
  arg: string;
  /** The argument's value: the target. */
  target: string;
  /** Most claims on the target across the tenant's runs. */
  max: number;
  /** The run making the claim. */
  runId: string;
  /** The intent: the idempotency key, or the call id when there is none. */
  intent: string;
  /** The call making the claim; only it may release a fresh claim. */
  callId: string;
  /** Tenant of the run, to ask the run about an unconfirmed claim. */
  tenant: string;
  /** How long a fresh claim waits for its run to decide before the alarm asks the run. */
  leaseMs: number;
}

/** The TargetClaims object's answer: the claim is held (`fresh` when this call made it), or refused. */
export type ClaimAnswer = { kind: "held"; fresh: boolean } | { kind: "refuse"; refusal: Refusal };

/** What the agent is told while a call waits for a person. */
export interface ApprovalTicket {
  /** The approval's id. */
  approval_id: string;
  /** The rule that asked. */
  rule: string;
  /** When a call first asked (ISO 8601). */
  requested_at: string;
  /** When the approval expires unless decided (ISO 8601). */
  expires_at: string;
  /** Whether this call opened the approval (false: it was already waiting). */
  created: boolean;
  /** The validated arguments as JSON text, for the notification. */
  args: string;
}
