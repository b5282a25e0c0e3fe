/**
 * One agent run's Durable Object: budget, idempotency keys, deadline, kill switch, approvals
 * and the append-only audit log, each decision one `transactionSync`.
 */
import { DurableObject } from "cloudflare:workers";
import { admit, UNCAPPED } from "../core/admission.ts";
import type { ApprovalStatus } from "../core/approval.ts";
import type { ChainReport } from "../core/audit-chain.ts";
import { type LimitOverride, type RunLimits, tighten } from "../core/limits.ts";
import { limitsFor, targetRuleOf } from "../core/policy.ts";
import { DECISION_TABLE, type Refusal, refuse } from "../core/reasons.ts";
import { FENCE, policyVersion } from "../fence.ts";
import { abandonExpired, abandonedEntry, nextWake, outcomeBase } from "./abandon.ts";
import { approvalStep } from "./approval-step.ts";
import type {
  ApprovalView,
  DecideAnswer,
  EscalationFilter,
  EscalationView,
  OperatorAct,
  OperatorDecision,
  Resolution,
  ResolveAnswer,
} from "./approval-types.ts";
import { listApprovals } from "./approvals.ts";
import { type AuditDraft, entryOf } from "./audit-draft.ts";
import {
  append,
  chainOldEntries,
  decisionCounts,
  head,
  openEntry,
  verifyLog,
} from "./audit-log.ts";
import { holdKey, readKey, storedAnswer } from "./keys.ts";
import { migrate } from "./migrations.ts";
import { decide, type LedgerScope, listEscalations, resolve } from "./operator.ts";
import type {
  AuditEntry,
  BudgetView,
  LedgerAnswer,
  LedgerProposal,
  OpenAnswer,
  Rejection,
  RunRef,
  RunSummary,
  RunView,
  Settlement,
} from "./protocol.ts";
import { registerRun } from "./run-registration.ts";
import { chargeRun, insertRun, storeLimits } from "./run-row.ts";
import { callCaps, countUse, toolCalls } from "./usage.ts";
import {
  type AuditRow,
  auditEntry,
  budgetView,
  limitsOf,
  type RunRow,
  runState,
  runView,
} from "./views.ts";

/** Open escalations a summary counts at most (a run with more shows this many). */
const SUMMARY_COUNT_CAP = 1_000;
/**
 * One agent run: its budget, idempotency keys, deadline, kill switch and audit log.
 * The object is single-threaded, and every decision reads and writes its rows inside one
 * `transactionSync` with no other I/O in between, so each decision is atomic. Tools are
 * never called from here: the worker holds no decision open across a `fetch()`.
 */
export class RunLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Whether this instance knows the run is in its tenant's run index (a promise: writing it). */
  private indexed: boolean | Promise<void> = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    migrate(this.sql);
    // Synchronous, in the constructor: no request reaches the object before it is done.
    chainOldEntries(this.sql, this.readRun());
  }

  /** Decide a call that passed the contract gate: admit, replay, refuse it or ask a person. */
  async propose(ref: RunRef, p: LedgerProposal): Promise<LedgerAnswer> {
    const now = Date.now();
    const version = await policyVersion();
    // Idempotency keys are a mutation's; a key sent with a read is only recorded.
    const key = p.effect === "mutate" ? p.key : null;
    const answer = this.ctx.storage.transactionSync((): LedgerAnswer => {
      const run = this.ensureRun(ref, now);
      const limits = this.limitsOf(run.row);
      const stored = key === null ? null : readKey(this.sql, key);
      // A cache hit never reaches the tool: no cap binds it. (A tool the fence answers
      // itself also comes with its outcome, but it did run.)
      const reaches = p.outcome?.decision !== "cached";
      const rule = targetRuleOf(FENCE, p.tool);
      const caps = reaches ? callCaps(this.sql, limits, p.tool, rule, p.target) : UNCAPPED;
      const decision = admit(runState(run.row, limits), stored, { ...p, key, now }, caps);
      const draft = { ...p, reason: null, status: null, cache: null, durationMs: null };
      if (decision.kind === "refuse") {
        this.appendRefusal({ ...draft, decision: "block" }, decision.refusal, run.row);
        return { kind: "refuse", refusal: decision.refusal, budget: budgetView(run.row) };
      }
      if (decision.kind === "replay") {
        const original = storedAnswer(this.sql, key ?? "");
        this.appendAudit({ ...draft, decision: "replayed", status: original.status }, run.row);
        return { kind: "replay", ...original, budget: budgetView(run.row) };
      }
      // A new intent that reaches the tool may need a person first; a retry of an admitted
      // intent (charged already) was approved, if it had to be, when it was admitted.
      const asked =
        reaches && decision.charge.calls > 0
          ? approvalStep(this.scope(run.row, now), { ...draft, decision: "pending" }, key, version)
          : { approvalId: null };
      if ("kind" in asked) return asked;
      const row = chargeRun(this.sql, run.row, decision.charge);
      if (reaches) countUse(this.sql, decision.charge, p.tool, p.target);
      const overtaken = key === null ? null : holdKey(this.sql, key, p, stored, now);
      if (overtaken !== null) this.abandon(overtaken, row, now);
      const outcome = p.outcome;
      const approvalId = asked.approvalId;
      this.appendAudit(
        outcome === null
          ? { ...draft, decision: "pending", leaseExpiresAt: now + p.leaseMs, approvalId }
          : { ...draft, ...outcome, durationMs: Date.now() - now, approvalId },
        row,
      );
      const admitted = { budget: budgetView(row), deadlineAt: row.deadline_at, approvalId };
      return { kind: "admit", ...admitted };
    });
    if (answer.kind === "admit" && p.outcome === null) await this.wakeBy(now + p.leaseMs);
    else if (answer.kind === "admit" && key !== null) await this.wakeBy(nextWake(this.sql));
    this.indexOnce();
    return answer;
  }

  /** Close an admitted call with its outcome; the key stores it for replay. */
  async settle(ref: RunRef, s: Settlement): Promise<BudgetView> {
    const budget = this.ctx.storage.transactionSync(() => {
      const run = this.ensureRun(ref, Date.now());
      const { outcome } = s;
      // Only an open entry is settled: one the alarm already closed as abandoned stays so,
      // and its key is left to the retry it was handed to.
      const open = openEntry(this.sql, s.callId);
      if (open === null) return budgetView(run.row);
      append(
        this.sql,
        run.row,
        {
          ...outcomeBase(open, run.row),
          decision: outcome.decision,
          reason: outcome.reason,
          status: outcome.status,
          cache: outcome.cache,
          duration_ms: s.durationMs,
        },
        open.seq,
      );
      if (s.key !== null) {
        // Only the call that holds the key may settle it: a worker that outlived its
        // lease must not overwrite the outcome of the call that took the key over.
        this.sql.exec(
          "UPDATE idempotency_key SET phase = ?, status = ?, body = ? WHERE key = ? AND call_id = ?",
          outcome.decision === "retry" ? "retryable" : "done",
          outcome.status,
          outcome.body,
          s.key,
          s.callId,
        );
      }
      return budgetView(run.row);
    });
    await this.rearm();
    return budget;
  }

  /** Record a call refused before the run's rules (parse or contract gate). */
  async record(ref: RunRef, r: Rejection): Promise<BudgetView> {
    const budget = this.ctx.storage.transactionSync(() => {
      const run = this.ensureRun(ref, Date.now());
      this.appendRefusal(
        {
          ...r,
          decision: "block",
          reason: null,
          status: null,
          fingerprint: null,
          cache: null,
          durationMs: null,
        },
        r.refusal,
        run.row,
      );
      return budgetView(run.row);
    });
    this.indexOnce();
    return budget;
  }

  /**
   * Open the run with limits tighter than its current ones: the policy's (for its
   * tenant) when the run is new, its stored limits when it exists. Opening again with
   * the same limits changes nothing; a field that would loosen them is refused. Only an
   * operator or the key that opened an existing run may change its limits: any agent key
   * of the tenant could otherwise starve another agent's run (`allowed_tools: []`).
   */
  async open(ref: RunRef, override: LimitOverride, operator: boolean): Promise<OpenAnswer> {
    const now = Date.now();
    const answer = this.ctx.storage.transactionSync((): OpenAnswer => {
      const existing = this.readRun();
      if (existing !== null && !operator && (existing.opened_by ?? null) !== (ref.by ?? null)) {
        const detail = `Only an operator or the key that opened run ${ref.runId} may change its limits.`;
        return { kind: "refuse", refusal: refuse("forbidden_role", detail), field: null };
      }
      const base = existing === null ? limitsFor(FENCE, ref.tenant) : this.limitsOf(existing);
      const tightened = tighten(base, override, FENCE.policy.allowed_tools);
      if (!tightened.ok) {
        const { field, detail } = tightened.error;
        const whose = existing === null ? "the policy" : "the run's current limits";
        const refusal = refuse("override_loosens_policy", `${field}: ${detail} by ${whose}.`);
        return { kind: "refuse", refusal, field };
      }
      if (existing === null) this.ensureRun(ref, now, tightened.value);
      else storeLimits(this.sql, tightened.value);
      return { kind: "opened", created: existing === null, view: this.viewOf(null, now) };
    });
    this.indexOnce();
    return answer;
  }

  /** The kill switch: every later call of the run is refused with `run_halted`. */
  async halt(ref: RunRef, reason: string): Promise<RunView> {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.ensureRun(ref, now);
      this.sql.exec(
        "UPDATE run SET halted_at = ?, halt_reason = ? WHERE halted_at IS NULL",
        now,
        reason,
      );
    });
    this.indexOnce();
    return this.viewOf(this.readRun(), now);
  }

  /** Status of the run, or null when no call of it was ever seen. */
  status(): RunView | null {
    const row = this.readRun();
    return row === null ? null : this.viewOf(row, Date.now());
  }

  /**
   * The status, when the run last recorded a call, and what waits for an operator; null when
   * the run was never seen. The console's run list reads it.
   */
  summary(): RunSummary | null {
    const row = this.readRun();
    if (row === null) return null;
    const last = this.sql
      .exec<{ at: number }>("SELECT at FROM audit ORDER BY seq DESC LIMIT 1")
      .toArray()[0];
    const now = Date.now();
    return {
      ...this.viewOf(row, now),
      last_activity_at: new Date(last?.at ?? row.created_at).toISOString(),
      // The same lists the operator routes publish, counted.
      open_escalations: listEscalations(this.sql, "open", 0, SUMMARY_COUNT_CAP).length,
      pending_approvals: listApprovals(this.sql, row.run_id, "pending", now).length,
    };
  }

  /** Audit entries after `after`, oldest first, or null when no call of the run was seen. */
  audit(after: number, limit: number): AuditEntry[] | null {
    if (this.readRun() === null) return null;
    return this.sql
      .exec<AuditRow>("SELECT * FROM audit WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
      .toArray()
      .map(auditEntry);
  }

  /** The audit's last seq and hash, or null when no call of the run was seen. */
  auditHead(): { seq: number; hash: string } | null {
    return this.readRun() === null ? null : head(this.sql);
  }

  /** Recompute the whole hash chain as stored, or null when no call of the run was seen. */
  verifyAudit(): ChainReport | null {
    const run = this.readRun();
    return run === null ? null : verifyLog(this.sql, run);
  }

  /** Escalated calls after `after`, oldest first: open ones by default. */
  escalations(after: number, limit: number, filter: EscalationFilter = "open"): EscalationView[] {
    return listEscalations(this.sql, filter, after, limit);
  }

  /** The run's approvals, oldest first, or only those of `status`; null for an unseen run. */
  approvals(status: ApprovalStatus | null): ApprovalView[] | null {
    const row = this.readRun();
    return row === null ? null : listApprovals(this.sql, row.run_id, status, Date.now());
  }

  /** An operator approves or denies a pending approval of this run, once. */
  decide(id: string, decision: OperatorDecision, act: OperatorAct): DecideAnswer {
    return this.ctx.storage.transactionSync(() => {
      const scope = this.operatorScope();
      if (scope === null) return { kind: "refuse", refusal: refuse("not_found", "Run not seen.") };
      return decide(scope, id, decision, act, FENCE.policy.approval_ttl_ms);
    });
  }

  /** An operator resolves an escalation of this run, once. */
  resolveEscalation(seq: number, resolution: Resolution, act: OperatorAct): ResolveAnswer {
    return this.ctx.storage.transactionSync(() => {
      const scope = this.operatorScope();
      if (scope === null) return { kind: "refuse", refusal: refuse("not_found", "Run not seen.") };
      return resolve(scope, seq, resolution, act);
    });
  }

  private operatorScope(): LedgerScope | null {
    const run = this.readRun();
    return run === null ? null : this.scope(run, Date.now());
  }

  /** The run's storage and its one append function, for a step written in another module. */
  private scope(run: RunRow, now: number): LedgerScope {
    const append = (d: AuditDraft, r: RunRow) => this.appendAudit(d, r);
    return { sql: this.sql, append, run, now };
  }

  /** Whether the run admitted a call on `target` of `tool` (a TenantLedger confirms a claim). */
  usedTarget(tool: string, target: string): boolean {
    return (
      this.sql
        .exec("SELECT 1 FROM target_use WHERE tool = ? AND target = ? AND used > 0", tool, target)
        .toArray().length > 0
    );
  }

  /**
   * Settle pending entries past their lease as abandoned (see abandon.ts), drop idempotency
   * keys past their retention, then wake again for the next of either.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      const run = this.readRun();
      if (run !== null) abandonExpired(this.sql, run, now, (d, of) => append(this.sql, run, d, of));
      this.sql.exec(
        "DELETE FROM idempotency_key WHERE expires_at <= ? AND (phase != 'in_flight' OR lease_expires_at <= ?)",
        now,
        now,
      );
    });
    await this.wakeBy(nextWake(this.sql));
  }

  /**
   * Put the run in its tenant's index once; the instance remembers, the row too. Not awaited:
   * the tenant's object is shared by all its runs, so no call's answer waits on it.
   */
  private indexOnce(): void {
    if (this.indexed !== false) return;
    this.indexed = registerRun(this.env, this.sql).then((done) => {
      this.indexed = done;
    });
  }

  /**
   * Once a call settles, the alarm its lease set is not needed: move it to the next thing due
   * (or drop it), so a run does not wake for nothing a lease after each of its calls.
   */
  private async rearm(): Promise<void> {
    const next = nextWake(this.sql);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || (next !== null && next <= current)) return;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  /** Make sure the alarm rings no later than `at` (null: nothing to wait for). */
  private async wakeBy(at: number | null): Promise<void> {
    if (at === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  private ensureRun(
    ref: RunRef,
    now: number,
    limits: RunLimits = limitsFor(FENCE, ref.tenant),
  ): { row: RunRow } {
    const existing = this.readRun();
    if (existing !== null) return { row: existing };
    insertRun(this.sql, ref, now, limits);
    return { row: this.requireRun() };
  }

  private limitsOf(row: RunRow): RunLimits {
    return limitsOf(row, limitsFor(FENCE, row.tenant));
  }

  private readRun(): RunRow | null {
    return this.sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").toArray()[0] ?? null;
  }

  private requireRun(): RunRow {
    return this.sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").one();
  }

  private appendRefusal(draft: AuditDraft, refusal: Refusal, run: RunRow): void {
    const rule = DECISION_TABLE[refusal.reason];
    this.appendAudit(
      { ...draft, decision: rule.decision, reason: refusal.reason, status: rule.status },
      run,
    );
  }

  /**
   * Append an audit entry through the log's one append (append-only, chained: audit-log.ts);
   * `run` is the row after the decision, for the budget after.
   */
  private appendAudit(d: AuditDraft, run: RunRow): void {
    append(this.sql, run, entryOf(d, run), null);
  }

  /** Close the open entry of a call whose key another call took over: its outcome is unknown. */
  private abandon(callId: string, run: RunRow, now: number): void {
    const open = openEntry(this.sql, callId);
    if (open !== null) append(this.sql, run, abandonedEntry(open, run, now), open.seq);
  }

  private viewOf(row: RunRow | null, now: number): RunView {
    const decisions = decisionCounts(this.sql);
    const run = row ?? this.requireRun();
    return runView(run, now, {
      limits: this.limitsOf(run),
      policyTools: FENCE.policy.allowed_tools,
      decisions,
      toolCalls: toolCalls(this.sql),
    });
  }
}
