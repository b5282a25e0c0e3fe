/**
 * A run's audit log as an incident timeline: one `<tbody>` per call, its proposal and its
 * outcome on one line (so live updates can replace a call in place when it settles), and its
 * detail folded below (call-detail.tsx). The audit keeps the two entries apart; only the page
 * joins them.
 */
import { gate, keyAsKept } from "../core/gate.ts";
import { findingsOfNote, type GuardFinding } from "../core/guardrails/scan.ts";
import type { Fence } from "../core/policy.ts";
import { type AuditPrincipal, principalName } from "../core/principal.ts";
import type { AuditEntry } from "../ledger/protocol.ts";
import { type CallContext, CallDetail, type TimelineEntry } from "./call-detail.tsx";

export type { TimelineEntry };

import { DecisionBadge, utcTime } from "./layout.tsx";

/** How the API reads a payload; the console re-reads a blocked one the same way. */
export interface ReadOptions {
  /** The contracts and policy. */
  fence: Fence;
  /** Deepest JSON nesting accepted. */
  maxDepth: number;
}

/**
 * The audit keeps a blocked call's reason and payload; its issues are found again by the
 * same pure gate the API runs, on that payload. A call the gate passes was blocked by the
 * run's own rules (budget, halt, caps), which the reason names.
 */
export async function explain(
  read: ReadOptions,
  entry: AuditEntry,
  outcome: AuditEntry | null = null,
): Promise<TimelineEntry> {
  if (entry.decision !== "block" || entry.payload_truncated) {
    return { entry, outcome, refusal: null };
  }
  const raw = {
    contentType: entry.content_type,
    text: entry.payload,
    ...keyAsKept(entry.idempotency_key),
    callerTools: null,
  };
  // Only the refusal is read here, never the fingerprint: no digest key is needed.
  const gated = await gate(read.fence, raw, { maxDepth: read.maxDepth }, () => null);
  return { entry, outcome, refusal: gated.ok ? null : gated.error.refusal };
}

/**
 * A page's entries as calls, oldest first: each outcome joined to the proposal it names
 * (`of`); an outcome whose proposal is on an earlier page stands alone.
 */
export function callsOf(entries: readonly AuditEntry[]): [AuditEntry, AuditEntry | null][] {
  const rows: [AuditEntry, AuditEntry | null][] = [];
  const bySeq = new Map<number, [AuditEntry, AuditEntry | null]>();
  for (const entry of entries) {
    const proposal = entry.of === null ? undefined : bySeq.get(entry.of);
    if (proposal !== undefined && proposal[1] === null) {
      proposal[1] = entry;
      continue;
    }
    const row: [AuditEntry, AuditEntry | null] = [entry, null];
    bySeq.set(entry.seq, row);
    rows.push(row);
  }
  return rows;
}

/** Who an entry's act is by, in words: the key's label or the person, and the app they used. */
function By(props: { principal: AuditPrincipal | undefined }) {
  const p = props.principal;
  if (p === undefined || p.kind === "fence") return null;
  const via = p.client_id === undefined ? "" : ` via ${p.client_id}`;
  const full =
    p.kind === "person" ? `${p.sub} at ${p.iss}${via}` : `key ${p.key_id ?? "development"}${via}`;
  return (
    <span class="muted by" title={full}>
      {` by ${principalName(p)}${via}`}
    </span>
  );
}

/** A span of milliseconds in words: `850 ms`, `12 s`, `4 min 5 s`, `2 h 3 min`. */
export function span(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

/**
 * What the entry says in words: an operator's reason or note (with who acted), or that a
 * call's outcome came after the run was halted.
 */
function Note(props: { entry: AuditEntry }) {
  const { actor, note, principal } = props.entry;
  const who = principal === undefined ? actor : principalName(principal);
  return (
    <tr class="more note">
      <td colspan={10}>
        {note}
        {who === null ? null : <span class="muted"> — {who}</span>}
      </td>
    </tr>
  );
}

/**
 * What the result rules did to a call's answer, read back from its note: rule, what was found
 * (a secret rule's id, a code point, a phrase's name), the action and the field. The audit
 * never held a value they found, so neither does this.
 */
function Findings(props: { findings: readonly GuardFinding[] }) {
  return (
    <tr class="more note">
      <td colspan={10}>
        <table class="issues findings">
          <caption>Result rules</caption>
          <thead>
            <tr>
              <th>Rule</th>
              <th>Found</th>
              <th>Action</th>
              <th>Field</th>
              <th>Offset</th>
            </tr>
          </thead>
          <tbody>
            {props.findings.map((f) => (
              <tr data-rule={f.rule} data-action={f.action}>
                <td>
                  <code>{f.rule}</code>
                </td>
                <td>
                  <code>{f.what}</code>
                  {f.count > 1 ? ` ×${f.count}` : ""}
                </td>
                <td>{f.action}</td>
                <td>
                  <code>{f.path}</code>
                </td>
                <td class="num">{f.offset}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </td>
    </tr>
  );
}

function NoteOrFindings(props: { entry: AuditEntry }) {
  const { note } = props.entry;
  if (note === null || note === "") return null;
  const findings = findingsOfNote(note);
  return findings === null ? <Note entry={props.entry} /> : <Findings findings={findings} />;
}

/**
 * One call: its row (the outcome's decision, reason, budget and status once settled, else how
 * long it has been open, as of `now`), the notes of its entries, and its detail folded below.
 */
export function Entry(props: { item: TimelineEntry; now: number; context: CallContext }) {
  const { entry, outcome } = props.item;
  const last = outcome ?? entry;
  const open = outcome === null && entry.decision === "pending";
  const took = outcome === null ? null : Date.parse(outcome.at) - Date.parse(entry.at);
  const budget = last.budget_after;
  return (
    <tbody
      id={`e-${entry.seq}`}
      data-seq={entry.seq}
      data-last={last.seq}
      data-decision={last.decision}
    >
      <tr>
        <td class="num" title={outcome === null ? undefined : `outcome #${outcome.seq}`}>
          {entry.seq}
        </td>
        <td class="num">{utcTime(entry.at)}</td>
        <td>
          <code>{entry.tool ?? "?"}</code>
          <By principal={entry.principal} />
        </td>
        <td>
          <DecisionBadge decision={last.decision} />
          {open ? (
            <div class="open-for">open for {span(props.now - Date.parse(entry.at))}</div>
          ) : null}
        </td>
        <td>{last.reason === null ? "" : <code>{last.reason}</code>}</td>
        <td class="num">{took === null ? "" : span(took)}</td>
        <td class="hide-narrow">
          {entry.idempotency_key === null ? "" : <code>{entry.idempotency_key}</code>}
        </td>
        <td class="hide-narrow">{last.cache ?? ""}</td>
        <td class="num">
          {budget.mutations} mut · {budget.paid_calls} paid
        </td>
        <td class="num hide-narrow">{last.status ?? ""}</td>
      </tr>
      <NoteOrFindings entry={entry} />
      {outcome === null ? null : <NoteOrFindings entry={outcome} />}
      <CallDetail item={props.item} context={props.context} />
    </tbody>
  );
}

/** The header row of the timeline table. */
export function TimelineHead() {
  return (
    <thead>
      <tr>
        <th>#</th>
        <th>Proposed</th>
        <th>Tool</th>
        <th>Outcome</th>
        <th>Reason</th>
        <th>Proposal to outcome</th>
        <th class="hide-narrow">Idempotency key</th>
        <th class="hide-narrow">Cache</th>
        <th>Budget after</th>
        <th class="hide-narrow">HTTP</th>
      </tr>
    </thead>
  );
}
