/**
 * One agent run's Durable Object: budget, idempotency keys, deadline, kill switch, approvals
 * and the append-only audit log, each decision one `transactionSync`.
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalStatus } from "../core/approval.ts";
import type { ChainReport } from "../core/audit-chain.ts";
import { canonicalize } from "../core/canonical.ts";
import type { LimitOverride } from "../core/limits.ts";
import type { Fence } from "../core/policy.ts";
import { type AuditPrincipal, FENCE_PRINCIPAL } from "../core/principal.ts";
import { DECISION_TABLE, type Refusal, refuse } from "../core/reasons.ts";
import { recordApprovalsExpired } from "../telemetry/index.ts";
import { takeBack } from "./approvals/approval-step.ts";
import type {
  ApprovalView,
  DecideAnswer,
  EscalationFilter,
  EscalationView,
  OperatorAct,
  OperatorDecision,
  Resolution,
  ResolveAnswer,
} from "./approvals/approval-types.ts";
import { listApprovals, oneApproval } from "./approvals/approvals.ts";
import {
  type AskedApproval,
  expireLapsedApprovals,
  type LapsedApproval,
} from "./approvals/expiry.ts";
import { noticeOf, notify } from "./approvals/webhook.ts";
import { ArchiveAlarm, wakeBy } from "./audit/archive-alarm.ts";
import { archiveConfig, type SegmentRow, segments } from "./audit/audit-archive.ts";
import { type AuditDraft, entryOf } from "./audit/audit-draft.ts";
import { append, head, type Link, lastSeq } from "./audit/audit-log.ts";
import { type AuditPage, auditPage, SegmentReader, verifyArchived } from "./audit/audit-reader.ts";
import type {
  BudgetView,
  LedgerAnswer,
  LedgerProposal,
  OpenAnswer,
  Recorded,
  Rejection,
  RoundAnswer,
  RoundStep,
  RunRef,
  RunSummary,
  RunView,
  Settlement,
  Withdrawal,
} from "./protocol.ts";
import { admittedWake, expireCalls, lapseCall, settleLapsed } from "./run/abandon.ts";
import type { HaltView, SettleAnswer } from "./run/halt-types.ts";
import { openRun } from "./run/open-run.ts";
import {
  type ApprovalEdit,
  decide,
  halt,
  type LedgerScope,
  listEscalations,
  recordAct,
  resolve,
} from "./run/operator.ts";
import { policyVersion } from "./run/policy-version.ts";
import { decideProposal, recordRejection } from "./run/propose.ts";
import { awaitRound, resumeRound } from "./run/rounds.ts";
import { RunIndexing } from "./run/run-registration.ts";
import { readRun, runRowOf } from "./run/run-row.ts";
import { statusOf, summaryOf } from "./run/run-status.ts";
import { RunStorage } from "./run/run-storage.ts";
import { settleCall } from "./run/settle.ts";
import { targetUsed } from "./run/usage.ts";
import { withdrawCall } from "./run/withdraw.ts";
import { budgetView, type EntryDraft, type RunRow } from "./views.ts";

/**
 * One agent run: its budget, idempotency keys, deadline, kill switch and audit log.
 * The object is single-threaded, and every decision reads and writes its rows inside one
 * `transactionSync` with no other I/O in between, so each decision is atomic. Tools are
 * never called from here: the worker holds no decision open across a `fetch()`.
 */
export class RunLedger extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly reader: SegmentReader;
  private readonly index: RunIndexing;
  private readonly alarms: ArchiveAlarm;
  /**
   * Every write's one storage transaction. One that throws is rolled back, and with it any
   * entry it appended: the chain's last link is read from the log again.
   */
  private readonly transact = <T>(f: () => T): T => {
    try {
      return this.ctx.storage.transactionSync(f);
    } catch (e) {
      this.last = null;
      throw e;
    }
  };
  /**
   * The chain's last link as this instance appended it (null: unknown, read from the log). The
   * object is the log's one writer, and a trim keeps the last entry (audit-trim.ts).
   */
  private last: Link | null = null;
  /** An outcome entry's append, for steps written in other modules. */
  private readonly logOutcome = (d: EntryDraft, r: RunRow, of: number) => this.log(d, r, of);
  /**
   * Who the entries being appended are by (RFC 8785 JSON): the caller of the method deciding
   * now, set around its synchronous transaction only (as), else the fence (the alarm).
   */
  private acting = canonicalize(FENCE_PRINCIPAL);
  /** The seq of the last entry this instance appended, and whether its run had ended. */
  private appended = 0;
  private ended = false;
  /** Whether this instance has read the run's row: a run once created stays (admitNew). */
  private known = false;
  private readonly storage: RunStorage;
  /** The contracts and policy the worker's app gates with: src/worker.ts passes them. */
  private readonly fence: Fence;

  constructor(ctx: DurableObjectState, env: Env, fence: Fence) {
    super(ctx, env);
    this.fence = fence;
    this.sql = ctx.storage.sql;
    this.storage = new RunStorage(this.sql);
    this.reader = new SegmentReader(env.AUDIT_ARCHIVE);
    this.index = new RunIndexing(env, fence);
    this.alarms = new ArchiveAlarm(ctx.storage, { env, sql: this.sql, transact: this.transact });
    // Synchronous, in the constructor: no request reaches the object before it is done. A
    // storage with no schema is built at the first write, so reading a run never seen leaves
    // no database.
    this.alarms.start(this.storage.built ? readRun(this.sql) : null);
  }

  /** Decide a call that passed the contract gate: admit, replay, refuse it or ask a person. */
  async propose(ref: RunRef, p: LedgerProposal): Promise<LedgerAnswer> {
    const now = Date.now();
    const unopened = await this.admitNew(ref, now);
    if (unopened !== null) return { kind: "refuse", ...unopened };
    this.storage.build();
    const version = await policyVersion(this.fence);
    let run: RunRow | null = null;
    const answer = this.as(ref.principal, (): LedgerAnswer => {
      run = this.rowOf(ref, now);
      const ledger = this.scope(run, now);
      const lapse = (callId: string, run: RunRow) =>
        lapseCall(this.sql, callId, run, now, this.logOutcome);
      return decideProposal({ ledger, lapse }, p, version);
    });
    // A new run's alarm first, so the call's own bound (a new key's expiry, the run's end for
    // an open call: abandon.ts) finds it set and writes the alarm only when it is earlier.
    await this.afterWrite(run, now);
    const retain = this.fence.policy.idempotency_retention_ms;
    // A new approval's deadline is an event: the alarm rings by it (approvals/expiry.ts).
    const wake =
      answer.kind === "admit"
        ? admittedWake(p, run, now, retain)
        : answer.kind === "approval" && answer.approval.created
          ? Date.parse(answer.approval.expires_at)
          : null;
    await wakeBy(this.ctx.storage, wake);
    return answer;
  }

  /** Close an admitted call with its outcome, marked when it comes after a halt (settle.ts). */
  settle(ref: RunRef, s: Settlement): SettleAnswer {
    let halted = false;
    const budget = this.close(ref, (run) => {
      halted = run.halted_at !== null;
      return settleCall(this.sql, run, s, this.logOutcome);
    });
    return { budget, afterHalt: halted };
  }

  /**
   * Hold an admitted call open for the client's input (rounds.ts): false when it is no longer
   * open, so no round can continue it.
   */
  awaitInput(ref: RunRef, step: RoundStep): boolean {
    let waiting = false;
    this.close(ref, (run) => {
      waiting = awaitRound(this.sql, step, Date.now());
      return run;
    });
    return waiting;
  }

  /** Continue an admitted call with the client's answer to one round, once (rounds.ts). */
  resumeInput(ref: RunRef, step: RoundStep): RoundAnswer {
    let refusal: Refusal | null = null;
    let deadlineAt = 0;
    const budget = this.close(ref, (run) => {
      refusal = resumeRound(this.sql, run, step, Date.now());
      deadlineAt = run.deadline_at;
      return run;
    });
    return { budget, deadlineAt, refusal };
  }

  /** Take back an admitted call whose tenant-wide claim was refused (withdraw.ts). */
  withdraw(ref: RunRef, w: Withdrawal): BudgetView {
    return this.close(ref, (run) => withdrawCall(this.sql, run, w, this.logOutcome));
  }

  /** Record a call refused before the run's rules (gate); an ended run's refusal comes first. */
  async record(ref: RunRef, r: Rejection): Promise<Recorded> {
    const now = Date.now();
    const unopened = await this.admitNew(ref, now);
    if (unopened !== null) return unopened;
    this.storage.build();
    const { run, refusal } = this.as(ref.principal, () => {
      const run = this.rowOf(ref, now);
      return { run, refusal: recordRejection({ ledger: this.scope(run, now) }, r) };
    });
    await this.afterWrite(run, now);
    return { budget: budgetView(run), refusal };
  }

  /** An operator's act on `tool` outside any call, as an entry of this run's log; false if refused. */
  async recordAct(ref: RunRef, tool: string, act: OperatorAct): Promise<boolean> {
    const now = Date.now();
    if ((await this.admitNew(ref, now)) !== null) return false;
    this.storage.build();
    const run = this.as(act.principal ?? ref.principal, () =>
      recordAct(this.scope(this.rowOf(ref, now), now), tool, act),
    );
    await this.afterWrite(run, now);
    return true;
  }

  /** Open the run with limits tighter than its current ones (open-run.ts). */
  async open(ref: RunRef, override: LimitOverride, operator: boolean): Promise<OpenAnswer> {
    const now = Date.now();
    const unopened = await this.admitNew(ref, now);
    if (unopened !== null) return { kind: "refuse", refusal: unopened.refusal, field: null };
    this.storage.build();
    const { answer, run } = this.as(ref.principal, () =>
      openRun(this.sql, ref, { override, operator }, now, this.fence),
    );
    await this.afterWrite(run, now);
    return answer;
  }

  /**
   * The kill switch, an audit entry with `act`'s actor and reason (operator.ts). A run never
   * seen is halted (created halted) only when `preHalt` asks; else null, nothing written.
   */
  async halt(ref: RunRef, act: OperatorAct, preHalt: boolean): Promise<HaltView | null> {
    if (!preHalt && (!this.storage.built || readRun(this.sql) === null)) return null;
    this.storage.build();
    const now = Date.now();
    const { run, inFlight } = this.as(act.principal ?? ref.principal, () =>
      halt(this.scope(this.rowOf(ref, now), now), act),
    );
    // The run ended: the alarm archives the rest of its log, and its tenant stops counting it.
    await wakeBy(this.ctx.storage, now);
    this.index.once(run);
    await this.index.ended(run, now);
    return { ...statusOf(this.sql, run, now, this.fence), in_flight: inFlight };
  }

  /** Status of the run, or null when no call of it was ever seen. */
  status(): RunView | null {
    return this.read((row) => statusOf(this.sql, row, Date.now(), this.fence));
  }

  /**
   * The status, when the run last recorded a call, and what waits for an operator; null when
   * the run was never seen. The console's run list reads it.
   */
  summary(): RunSummary | null {
    return this.read((row) => summaryOf(this.sql, row, Date.now(), this.fence));
  }

  /** Audit entries after `after`, oldest first, archived ones included; null for an unseen run. */
  async audit(after: number, limit: number): Promise<AuditPage | null> {
    return this.read(() => auditPage(this.sql, this.reader, after, limit));
  }

  /** The archived segments, oldest first, or null when no call of the run was seen. */
  auditSegments(): SegmentRow[] | null {
    return this.read(() => segments(this.sql));
  }

  /** The audit's last seq and hash, or null when no call of the run was seen. */
  auditHead(): { seq: number; hash: string } | null {
    return this.read(() => head(this.sql));
  }

  /** Recompute the whole hash chain, archived segments included; null for an unseen run. */
  async verifyAudit(): Promise<ChainReport | null> {
    return this.read((run) => verifyArchived(this.sql, this.reader, run));
  }

  /** Escalated calls after `after`, oldest first: open ones by default. */
  escalations(after: number, limit: number, filter: EscalationFilter = "open"): EscalationView[] {
    return this.storage.built ? listEscalations(this.sql, filter, after, limit) : [];
  }

  /** The run's approvals, oldest first, or only those of `status`; null for an unseen run. */
  approvals(status: ApprovalStatus | null): ApprovalView[] | null {
    return this.read((row) => listApprovals(this.sql, row.run_id, status, Date.now()));
  }

  /** The approval `id` as `approvals` lists it; null when the run has none by that id or is unseen. */
  approval(id: string): ApprovalView | null {
    return this.read((row) => oneApproval(this.sql, row.run_id, id, Date.now()));
  }

  /** An operator approves or denies a pending approval of this run, once. */
  decide(
    id: string,
    decision: OperatorDecision,
    act: OperatorAct,
    edit?: ApprovalEdit,
  ): DecideAnswer {
    const answer = this.asOperator(act.principal, (s) =>
      decide(s, id, decision, act, s.fence.policy.approval_ttl_ms, edit),
    );
    // A vote short of the quorum decides nothing yet: the receiver hears of the decision.
    if (answer.kind === "decided" && answer.approval.status !== "pending") {
      const tenant = readRun(this.sql)?.tenant ?? "";
      this.ctx.waitUntil(
        this.announce("approval.decided", tenant, [this.originOf(answer.approval)]),
      );
    }
    return answer;
  }

  /** Take back a pending approval the tenant's cap refused (approval-step.ts). */
  dropApproval(ref: RunRef, id: string, r: Omit<Rejection, "evidence">): BudgetView {
    return this.close(ref, (run) => takeBack(this.scope(run, Date.now()), id, r));
  }

  /** An operator resolves an escalation of this run, once. */
  resolveEscalation(seq: number, resolution: Resolution, act: OperatorAct): ResolveAnswer {
    return this.asOperator(act.principal, (scope) => resolve(scope, seq, resolution, act));
  }

  /** Whether the run admitted a call on `target` of `tool` (a TargetClaims object confirms a claim). */
  usedTarget(tool: string, target: string): boolean {
    return this.storage.built && targetUsed(this.sql, tool, target);
  }

  /**
   * Settle pending entries past their lease as abandoned (see abandon.ts), drop idempotency
   * keys past their retention, expire approvals past their deadline (approvals/expiry.ts),
   * archive what is due (audit-archive.ts), then wake again for the next of any; last, tell
   * the tenant's index and the webhook of the expired approvals, and record them as decisions
   * in telemetry (src/telemetry/alarm.ts).
   */
  override async alarm(): Promise<void> {
    if (!this.storage.built) return;
    const now = Date.now();
    const lapsed = this.transact(() => {
      expireCalls(this.sql, now, this.logOutcome);
      const run = readRun(this.sql);
      return run === null ? null : { run, expired: expireLapsedApprovals(this.scope(run, now)) };
    });
    await this.alarms.ring(archiveConfig(this.env), now);
    if (lapsed === null || lapsed.expired.length === 0) return;
    const { run, expired } = lapsed;
    // Told after the commit, and each on its own: a failing index leaves the notices to go.
    const tenant = this.env.TENANT_INDEX.getByName(run.tenant);
    await Promise.allSettled([
      ...expired.map((e) => tenant.markApproval(e.approval.approval_id, "expired")),
      this.announce("approval.expired", run.tenant, expired),
      this.observe(run, expired, now),
    ]);
  }

  /** Record expired approvals as the decisions they are: log line, counters, export. */
  private observe(run: RunRow, expired: LapsedApproval[], now: number): Promise<void> {
    const { decision, status } = DECISION_TABLE.approval_expired;
    const where = { tenant: run.tenant, runId: run.run_id, decision, status };
    const approvals = expired.map(({ approval, callId }) => ({
      approvalId: approval.approval_id,
      callId,
      tool: approval.tool,
      waitedMs: now - Date.parse(approval.requested_at),
    }));
    return recordApprovalsExpired(this.env, where, approvals);
  }

  /** Tell the webhook (if any) of approvals of this run, after their step is committed. */
  private async announce(
    type: "approval.decided" | "approval.expired",
    tenant: string,
    of: AskedApproval[],
  ) {
    const notices = of.map((e) => noticeOf(this.env, type, tenant, e.approval, e.origin));
    await Promise.all(notices.map((n) => notify(this.env, n)));
  }

  /** An approval with the origin its call came to, for its notice's link. */
  private originOf(approval: ApprovalView): AskedApproval {
    const row = this.sql
      .exec<{ origin: string | null }>(
        "SELECT origin FROM approval WHERE id = ?",
        approval.approval_id,
      )
      .toArray()[0];
    return { approval, origin: row?.origin ?? null };
  }

  /** Null when the run exists or its tenant lets it be created (run-registration.ts). */
  private admitNew(ref: RunRef, now: number): Promise<Recorded | null> {
    // The run's row is never deleted: once read, every later call knows it exists without
    // reading it again (the write's own transaction reads it: rowOf).
    this.known ||= this.storage.built && readRun(this.sql) !== null;
    return this.known ? Promise.resolve(null) : this.index.admit(ref, now);
  }

  /** Close an open call with `step` in one transaction. */
  private close(ref: RunRef, step: (run: RunRow) => RunRow): BudgetView {
    this.storage.build();
    const budget = this.as(ref.principal, () => budgetView(step(this.rowOf(ref, Date.now()))));
    this.alarms.appended(this.appended, this.ended);
    return budget;
  }

  /**
   * After a write that left the run's row `run` (null: none yet): arm the alarm for a new run's
   * end or a full segment; index the run.
   */
  private async afterWrite(run: RunRow | null, now: number): Promise<void> {
    if (run === null) return;
    if (run.created_at === now) await this.alarms.created(run, now);
    this.alarms.appended(this.appended, this.ended);
    this.index.once(run);
  }

  /** A read of the run's row (null: never seen), once calls past their lease are settled. */
  private read<T>(f: (run: RunRow) => T): T | null {
    if (!this.storage.built) return null;
    const row = this.transact(() => settleLapsed(this.sql, Date.now(), this.logOutcome));
    this.alarms.appended(this.appended, this.ended);
    return row === null ? null : f(row);
  }

  /** The run's row in a write's transaction, created if new; the write carries the index mark. */
  private rowOf(ref: RunRef, now: number): RunRow {
    return this.index.mark(this.sql, runRowOf(this.sql, ref, now, this.fence));
  }

  /** An operator's step on the run in one transaction; refused when the run was never seen. */
  private asOperator<A>(
    principal: AuditPrincipal | undefined,
    step: (scope: LedgerScope) => A,
  ): A | { kind: "refuse"; refusal: Refusal } {
    const answer = this.as(principal, () => {
      const run = this.storage.built ? readRun(this.sql) : null;
      if (run === null)
        return { kind: "refuse" as const, refusal: refuse("not_found", "Run not seen.") };
      return step(this.scope(run, Date.now()));
    });
    this.alarms.appended(this.appended, this.ended);
    return answer;
  }

  /**
   * The run's storage and its one append function, for a step written in another module; an
   * append is given the row after the decision, for the budget after.
   */
  private scope(run: RunRow, now: number): LedgerScope {
    const append = (d: AuditDraft, r: RunRow) => this.log(entryOf(d, r), r, null);
    const last = () => this.last?.seq ?? lastSeq(this.sql);
    const { sql, fence, acting: principal } = this;
    return { sql, append, lastSeq: last, run, now, fence, principal };
  }

  /**
   * `f` in one transaction whose entries are by `principal` (none given: the fence). The
   * transaction is synchronous, so no other request's entries come in between.
   */
  private as<T>(principal: AuditPrincipal | undefined, f: () => T): T {
    const before = this.acting;
    this.acting = canonicalize(principal ?? FENCE_PRINCIPAL);
    try {
      return this.transact(f);
    } finally {
      this.acting = before;
    }
  }

  /**
   * The one append of calls (append-only, chained: audit-log.ts), noting the seq so a full
   * segment arms the alarm, and naming who the entry's act is by.
   */
  private log(draft: EntryDraft, run: RunRow, of: number | null): void {
    const entry = { ...draft, principal: draft.principal ?? this.acting };
    const row = append(this.sql, run, entry, of, this.last);
    this.last = row.hash === null ? null : { seq: row.seq, hash: row.hash };
    this.appended = row.seq;
    this.ended = run.halted_at !== null || Date.now() >= run.deadline_at;
  }
}
