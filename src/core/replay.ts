/**
 * Replay a saved audit against the contracts and a policy, executing nothing: which
 * decisions would change, the result rules' included (from what each answer's note recorded).
 */
import * as v from "valibot";
import { endedRefusal } from "./admission.ts";
import { sha256HexSync } from "./audit-chain.ts";
import type { ToolContract } from "./contract.ts";
import { gate, keyAsKept } from "./gate.ts";
import { resultRulesOf } from "./guardrails/of-fence.ts";
import { blockedUnder } from "./guardrails/redecide.ts";
import { findingsOfNote } from "./guardrails/scan.ts";
import { type Fence, limitsFor } from "./policy.ts";
import { DECISION_TABLE, type Reason } from "./reasons.ts";
import { err, ok, type Result } from "./result.ts";
import { decide, type SimulatedRun, simulatedRun } from "./simulate.ts";

/** The fields of an audit entry replay reads; the export carries more, which are ignored. */
const AuditRecordSchema = v.object({
  seq: v.number(),
  call_id: v.string(),
  at: v.string(),
  tool: v.nullable(v.string()),
  decision: v.string(),
  reason: v.nullable(v.picklist(Object.keys(DECISION_TABLE) as Reason[])),
  idempotency_key: v.nullable(v.string()),
  content_type: v.nullable(v.string()),
  payload: v.string(),
  payload_truncated: v.boolean(),
  /** For an outcome entry: the seq of the call's entry it settles (absent in older exports). */
  of: v.optional(v.nullable(v.number()), null),
  /** What the result rules found in the answer, among other notes (absent in older exports). */
  note: v.optional(v.nullable(v.string()), null),
});

/** One recorded proposal, as `GET /v1/runs/{id}/audit` exports it. */
export type AuditRecord = v.InferOutput<typeof AuditRecordSchema>;

/**
 * What the fence did with a call: `admitted` (it went on to the tool, whatever the tool
 * then answered), `replayed` (a finished key's stored answer), or the reason it refused.
 */
export type FenceOutcome = "admitted" | "replayed" | Reason;

/** One call, as recorded and as the current contracts and policy would decide it. */
export interface ReplayedCall {
  /** Position in the run's audit log. */
  seq: number;
  /** Tool name, when it could be read. */
  tool: string | null;
  /** The fence's recorded decision. */
  before: FenceOutcome;
  /** The decision now. */
  after: FenceOutcome;
}

/** The result of replaying one run's audit. */
export interface ReplayReport {
  /** Every replayed call, in order. */
  calls: ReplayedCall[];
  /** The calls whose decision changed. */
  changed: ReplayedCall[];
  /** Seqs left out: their payload was cut at the audit's cap, or never read. */
  skipped: number[];
}

/** What a replay runs against. */
export interface ReplayOptions {
  /** The contracts and policy to decide with. */
  fence: Fence;
  /** The tenant whose limits the run gets. */
  tenant: string;
  /** Deepest JSON nesting accepted, as the worker's limit. */
  maxDepth: number;
}

/** Reasons that mean the fence admitted the call and the tool then failed. */
const UPSTREAM: ReadonlySet<string> = new Set([
  "upstream_timeout",
  "upstream_unavailable",
  "upstream_authz",
  "upstream_rejected",
  "upstream_drifted",
  "upstream_authorization_required",
  "output_contract_violation",
]);

/** Refusals made before the body was read: the audit cannot show what was sent. */
const UNREAD: ReadonlySet<string> = new Set(["payload_too_large"]);

/** Refusals of a run that ended, recorded without the call's body. */
const ENDED: ReadonlySet<FenceOutcome> = new Set(["run_halted", "run_deadline_exceeded"]);

/** Parse an NDJSON audit export; every bad line is named by its number. */
export function parseAudit(ndjson: string): Result<AuditRecord[], string[]> {
  const records: AuditRecord[] = [];
  const problems: string[] = [];
  ndjson.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
      return;
    }
    const parsed = v.safeParse(AuditRecordSchema, value);
    if (parsed.success) records.push(parsed.output);
    else
      problems.push(
        `line ${i + 1}.${v.getDotPath(parsed.issues[0]) ?? ""}: ${parsed.issues[0].message}`,
      );
  });
  return problems.length > 0
    ? err(problems)
    : ok(foldOutcomes(records.sort((a, b) => a.seq - b.seq)));
}

/**
 * One record per call: an outcome entry (`of` an admitted call's entry, in the append-only
 * log) gives that call its final decision and is not a proposal of its own.
 */
function foldOutcomes(records: AuditRecord[]): AuditRecord[] {
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  const calls: AuditRecord[] = [];
  for (const r of records) {
    const first = r.of === null ? undefined : bySeq.get(r.of);
    if (first === undefined) calls.push(r);
    else Object.assign(first, { decision: r.decision, reason: r.reason, note: r.note });
  }
  return calls;
}

/** The fence's part of a recorded decision. */
function recordedOutcome(r: AuditRecord): FenceOutcome {
  if (r.decision === "replayed") return "replayed";
  if (r.reason === null || UPSTREAM.has(r.reason)) return "admitted";
  return r.reason;
}

/**
 * Re-decide every recorded proposal of one run, in order, against `opts.fence`: the
 * stateless gate, then a simulated run ledger. Nothing is executed. An admitted call
 * settles as it did when recorded (a retryable upstream failure leaves its key
 * retryable); a call admitted only now is taken as done. The operator's kill switch is
 * not a policy decision, so a run halted when recorded is halted at the same point.
 */
export async function replayAudit(
  records: readonly AuditRecord[],
  opts: ReplayOptions,
): Promise<ReplayReport> {
  const first = records[0];
  const sim = simulatedRun(limitsFor(opts.fence, opts.tenant), first ? Date.parse(first.at) : 0);
  const calls: ReplayedCall[] = [];
  const skipped: number[] = [];
  for (const r of records) {
    // The halt's own entry is an operator's act, not a proposal: there is nothing to re-decide.
    if (r.decision === "halted") continue;
    if (r.payload_truncated || (r.reason !== null && UNREAD.has(r.reason))) {
      skipped.push(r.seq);
      continue;
    }
    const before = recordedOutcome(r);
    const after = await redecide(sim, r, before, opts);
    if (after === null) skipped.push(r.seq);
    else calls.push({ seq: r.seq, tool: r.tool, before, after });
  }
  return { calls, changed: calls.filter((c) => c.before !== c.after), skipped };
}

async function redecide(
  sim: SimulatedRun,
  r: AuditRecord,
  before: FenceOutcome,
  opts: ReplayOptions,
): Promise<FenceOutcome | null> {
  const now = Date.parse(r.at);
  if (before === "run_halted" && sim.state.haltedAt === null) sim.state.haltedAt = now;
  // A run that ended keeps no body of a call made after: its end alone decided it.
  if (ENDED.has(before) && r.payload === "" && r.content_type === null) {
    return endedRefusal(sim.state, now)?.reason ?? null;
  }
  const raw = { contentType: r.content_type, text: r.payload, ...keyAsKept(r.idempotency_key) };
  // A saved payload holds keyed digests, never a sensitive value: fingerprints here are only
  // compared with one another, so a plain digest of those digests tells them apart.
  const limits = { maxDepth: opts.maxDepth };
  const gated = await gate(opts.fence, { ...raw, callerTools: null }, limits, sha256HexSync);
  if (!gated.ok) return gated.error.refusal.reason;
  const settle =
    r.reason !== null && DECISION_TABLE[r.reason].decision === "retry" ? "retryable" : "done";
  const cached = r.decision === "cached";
  const decision = decide(sim, opts.fence, gated.value, { now, callId: r.call_id, settle, cached });
  if (decision.kind === "admit") return answeredNow(r, opts.fence, gated.value.contract);
  // A key held by a call still running was a race: timing, not policy, decided it.
  if (decision.kind === "replay") return before === "idempotency_key_in_use" ? before : "replayed";
  return decision.refusal.reason;
}

/**
 * An admitted call's answer under the result rules of `fence`: withheld if a rule now blocks
 * something its audit note recorded, else admitted. A result rule changed from `allow`
 * searched nothing when recorded, so what it would find is not known here.
 */
function answeredNow(r: AuditRecord, fence: Fence, contract: ToolContract): FenceOutcome {
  const findings = r.note === null ? null : findingsOfNote(r.note);
  if (findings === null) return "admitted";
  return blockedUnder(findings, resultRulesOf(fence, contract)) ? "result_blocked" : "admitted";
}

/** How an outcome reads in a sentence. */
function phrase(o: FenceOutcome): string {
  if (o === "admitted" || o === "replayed") return o;
  return `${DECISION_TABLE[o].decision === "block" ? "blocked" : DECISION_TABLE[o].decision} (${o})`;
}

/** The report for a reviewer: one summary line per kind of change, then every changed call. */
export function formatReport(report: ReplayReport): string {
  const groups = new Map<string, number>();
  for (const c of report.changed) {
    const line = `${phrase(c.before)} before would now be ${phrase(c.after)}`;
    groups.set(line, (groups.get(line) ?? 0) + 1);
  }
  const lines = [
    `replayed ${report.calls.length} call(s): ${report.changed.length} decision(s) would change`,
  ];
  for (const [line, n] of groups) lines.push(`  ${n} call${n === 1 ? "" : "s"} ${line}`);
  if (report.skipped.length > 0) {
    lines.push(`  skipped (payload not kept in full): #${report.skipped.join(", #")}`);
  }
  if (report.changed.length > 0) lines.push("", "changed calls:");
  for (const c of report.changed) {
    lines.push(`  #${c.seq} ${c.tool ?? "(unread)"}: ${phrase(c.before)} -> ${phrase(c.after)}`);
  }
  return lines.join("\n");
}
