/**
 * A small in-memory model of one run's ledger: what DESIGN.md says a run does with each
 * proposal, written out on its own (it never calls src/core/admission.ts), so the
 * RunLedger and the model can only agree if both follow the table.
 */
import { approvalInModel, asksPerson, type ModelApproval } from "./approval-model.ts";

/** Where a model key stands. */
export interface ModelKey {
  /** Fingerprint of the first payload sent with the key. */
  fingerprint: string;
  /** `in_flight`, `done` or `retryable`. */
  phase: "in_flight" | "done" | "retryable";
  /** The call that holds the key (or finished it). */
  holder: string;
  /** Whether the holder's lease has run out. */
  leaseExpired: boolean;
  /** Stored status once done. */
  status: number | null;
  /** Whether the key's upstream honours it, as its holder was sent. */
  honoured: boolean;
}

/** One audit entry as the model expects it. */
export interface ModelEntry {
  /** The call. */
  callId: string;
  /** Its decision. */
  decision: string;
  /** Its reason code, or null. */
  reason: string | null;
  /** For a pending entry: whether an outcome entry has closed it since. */
  closed?: boolean;
}

/** The open (pending, not yet closed) entry of a call, if any. */
function openOf(m: LedgerModel, callId: string): ModelEntry | undefined {
  return m.audit.find((e) => e.callId === callId && e.decision === "pending" && !e.closed);
}

/** Close a call's open entry with an outcome entry; entries are appended, never changed. */
function close(m: LedgerModel, callId: string, decision: string, reason: string | null): boolean {
  const open = openOf(m, callId);
  if (open === undefined) return false;
  open.closed = true;
  m.audit.push({ callId, decision, reason });
  return true;
}

/** The whole model of a run. */
export interface LedgerModel {
  /** Kill switch thrown. */
  halted: boolean;
  /** Deadline passed. */
  expired: boolean;
  /** Mutations charged. */
  mutations: number;
  /** Paid calls charged. */
  paid: number;
  /** Most mutations. */
  maxMutations: number;
  /** Most paid calls. */
  maxPaid: number;
  /** Idempotency keys. */
  keys: Map<string, ModelKey>;
  /** The audit log, in order. */
  audit: ModelEntry[];
  /** Admitted calls whose worker has not settled them yet, with what admitting them charged. */
  open: OpenCall[];
  /** Call ids handed out so far. */
  calls: number;
  /** Approvals the run opened, oldest first. */
  approvals: ModelApproval[];
}

/** An admitted call not settled yet. */
export interface OpenCall {
  /** The call. */
  callId: string;
  /** Its key, or null. */
  key: string | null;
  /** What its admission charged: only its paid call for a retry of an intent charged before. */
  charge: { mutations: number; paid: number; calls: number };
}

const FREE = { mutations: 0, paid: 0, calls: 0 };

/** What a proposal should get back. */
export type Expected =
  | { kind: "admit" }
  | { kind: "replay"; status: number }
  | { kind: "approval" }
  | { kind: "refuse"; reason: string };

/** One proposal as the model sees it. */
export interface ModelProposal {
  /** The call. */
  callId: string;
  /** Whether it mutates. */
  mutates: boolean;
  /** Whether it is charged as paid. */
  paid: boolean;
  /** Idempotency key (ignored for reads). */
  key: string | null;
  /** Whether the tool's upstream honours the key (`upstream.idempotent`). */
  honoured: boolean;
  /** Payload fingerprint. */
  fingerprint: string;
  /** Decision already known (a cache hit), or null. */
  known: "cached" | null;
}

const BLOCKS: Record<string, string> = {
  run_halted: "block",
  run_deadline_exceeded: "block",
  idempotency_key_reused: "block",
  idempotency_key_in_use: "retry",
  budget_exhausted: "block",
};

function refused(m: LedgerModel, callId: string, reason: string): Expected {
  m.audit.push({ callId, decision: BLOCKS[reason] ?? "?", reason });
  return { kind: "refuse", reason };
}

/** A proposal with a key that was seen before. */
function again(m: LedgerModel, p: ModelProposal, k: ModelKey): Expected {
  if (k.fingerprint !== p.fingerprint) return refused(m, p.callId, "idempotency_key_reused");
  if (k.phase === "done") {
    m.audit.push({ callId: p.callId, decision: "replayed", reason: null });
    return { kind: "replay", status: k.status ?? -1 };
  }
  if (k.phase === "in_flight") return refused(m, p.callId, "idempotency_key_in_use");
  // A retry reaches the tool again: its mutation was charged once, a paid call is each time.
  if (p.paid && m.paid + 1 > m.maxPaid) return refused(m, p.callId, "budget_exhausted");
  m.paid += p.paid ? 1 : 0;
  Object.assign(k, {
    phase: "in_flight",
    holder: p.callId,
    leaseExpired: false,
    status: null,
    honoured: p.honoured,
  });
  m.audit.push({ callId: p.callId, decision: "pending", reason: null });
  m.open.push({ callId: p.callId, key: p.key, charge: { ...FREE, paid: p.paid ? 1 : 0 } });
  return { kind: "admit" };
}

/**
 * Settle the call holding `k`, whose worker died: its outcome is unknown. An upstream that
 * honours the key may get it again (abandoned, retryable); any other must not (an escalation,
 * which the key replays).
 */
function lapse(m: LedgerModel, k: ModelKey): void {
  if (k.honoured) {
    close(m, k.holder, "abandoned", null);
    k.phase = "retryable";
  } else {
    close(m, k.holder, "escalate", "upstream_outcome_unknown");
    Object.assign(k, { phase: "done", status: 502 });
  }
}

/** Apply one proposal to the model and say what the ledger must answer. */
export function proposeInModel(m: LedgerModel, p: ModelProposal): Expected {
  const key = p.mutates ? p.key : null;
  const known = key === null ? undefined : m.keys.get(key);
  // A holder past its lease is settled before anything is decided, as a read would settle it.
  if (known?.phase === "in_flight" && known.leaseExpired) lapse(m, known);
  if (m.halted) return refused(m, p.callId, "run_halted");
  if (m.expired) return refused(m, p.callId, "run_deadline_exceeded");
  if (known !== undefined) return again(m, p, known);
  const mutations = m.mutations + (p.mutates ? 1 : 0);
  const paid = m.paid + (p.paid ? 1 : 0);
  if (mutations > m.maxMutations || paid > m.maxPaid) {
    return refused(m, p.callId, "budget_exhausted");
  }
  const asked = asksPerson(p) ? approvalInModel(m, p) : null;
  if (asked !== null) return asked;
  m.mutations = mutations;
  m.paid = paid;
  if (p.known !== null) {
    m.audit.push({ callId: p.callId, decision: p.known, reason: null });
    return { kind: "admit" };
  }
  if (key !== null) {
    m.keys.set(key, {
      fingerprint: p.fingerprint,
      phase: "in_flight",
      holder: p.callId,
      leaseExpired: false,
      status: null,
      honoured: p.honoured,
    });
  }
  m.audit.push({ callId: p.callId, decision: "pending", reason: null });
  const charge = { mutations: p.mutates ? 1 : 0, paid: p.paid ? 1 : 0, calls: 1 };
  m.open.push({ callId: p.callId, key, charge });
  return { kind: "admit" };
}

/** Outcomes a worker can settle a call with. */
export const OUTCOMES = {
  applied: { decision: "applied", reason: null, status: 200 },
  retry: { decision: "retry", reason: "upstream_timeout", status: 504 },
  escalate: { decision: "escalate", reason: "upstream_rejected", status: 502 },
} as const;

/** Settle the `index`th open call; the key changes only if that call still holds it. */
export function settleInModel(m: LedgerModel, index: number, outcome: keyof typeof OUTCOMES) {
  const [call] = m.open.splice(index, 1);
  if (call === undefined) throw new Error("no open call to settle");
  const o = OUTCOMES[outcome];
  // A read (no key) that comes back after the halt is recorded as the halt's refusal.
  const withheld = m.halted && call.key === null;
  const [decision, reason] = withheld ? ["block", "run_halted"] : [o.decision, o.reason];
  // Only an open call is settled: an abandoned one stays abandoned, its key untouched.
  if (!close(m, call.callId, decision, reason)) return call;
  const k = call.key === null ? undefined : m.keys.get(call.key);
  if (k !== undefined && k.holder === call.callId) {
    k.phase = outcome === "retry" ? "retryable" : "done";
    k.status = o.status;
  }
  return call;
}

/**
 * Withdraw the `index`th open call, as when its tenant-wide claim was refused: the call is
 * closed as refused and the run gives back what admitting it took (the charge, a new intent's
 * key, a retried intent's key back to retryable, a spent approval). An abandoned call stays so.
 */
export function withdrawInModel(m: LedgerModel, index: number): OpenCall {
  const [call] = m.open.splice(index, 1);
  if (call === undefined) throw new Error("no open call to withdraw");
  if (!close(m, call.callId, "block", "target_cap_exhausted")) return call;
  m.mutations -= call.charge.mutations;
  m.paid -= call.charge.paid;
  const k = call.key === null ? undefined : m.keys.get(call.key);
  if (call.key !== null && k !== undefined && k.holder === call.callId) {
    if (call.charge.calls > 0) m.keys.delete(call.key);
    else k.phase = "retryable";
  }
  const spent = m.approvals.find((a) => a.consumer === call.callId && a.status === "consumed");
  if (spent !== undefined) Object.assign(spent, { status: "approved", consumer: null });
  return call;
}

/**
 * The ledger's alarm after every lease of the run ran out: each pending entry is settled, as
 * its key's upstream allows (lapse); a read's is abandoned. Charges stay.
 */
export function abandonInModel(m: LedgerModel): void {
  const open = m.audit.filter((e) => e.decision === "pending" && !e.closed).map((e) => e.callId);
  for (const callId of open) {
    const held = [...m.keys.values()].find((k) => k.holder === callId && k.phase === "in_flight");
    if (held === undefined) close(m, callId, "abandoned", null);
    else lapse(m, held);
  }
}

/** Decision counts as `GET /v1/runs/{id}` publishes them. */
export function decisionsOf(m: LedgerModel): Record<string, number> {
  // Each call once, by its latest entry: a closed pending entry no longer counts.
  const counts: Record<string, number> = {};
  for (const e of m.audit) {
    if (!e.closed) counts[e.decision] = (counts[e.decision] ?? 0) + 1;
  }
  return counts;
}

/** The run's status as published. */
export function statusOf(m: LedgerModel): "open" | "halted" | "expired" {
  return m.halted ? "halted" : m.expired ? "expired" : "open";
}
