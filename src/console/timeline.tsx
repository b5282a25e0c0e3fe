/**
 * A run's audit log as an incident timeline: one `<tbody>` per entry (so live updates can
 * replace an entry in place when a pending call settles), and for a call with a reason
 * (blocked, to retry, escalated) a fold with why, its issues when the gate finds them, and
 * the payload exactly as the fence received it.
 */
import { gate, keyAsKept } from "../core/gate.ts";
import type { Fence } from "../core/policy.ts";
import { DECISION_TABLE, type Refusal } from "../core/reasons.ts";
import type { AuditEntry } from "../ledger/protocol.ts";
import { DecisionBadge } from "./layout.tsx";

/** An audit entry, with why it was blocked when the gate can tell again. */
export interface TimelineEntry {
  /** The entry as the ledger stored it. */
  entry: AuditEntry;
  /** The gate's refusal of the stored payload, re-read with the current contracts. */
  refusal: Refusal | null;
}

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
export async function explain(read: ReadOptions, entry: AuditEntry): Promise<TimelineEntry> {
  if (entry.decision !== "block" || entry.payload_truncated) return { entry, refusal: null };
  const raw = {
    contentType: entry.content_type,
    text: entry.payload,
    ...keyAsKept(entry.idempotency_key),
    callerTools: null,
  };
  // Only the refusal is read here, never the fingerprint: no digest key is needed.
  const gated = await gate(read.fence, raw, { maxDepth: read.maxDepth }, () => null);
  return { entry, refusal: gated.ok ? null : gated.error.refusal };
}

function time(iso: string): string {
  return iso.slice(11, 23);
}

function Why(props: { item: TimelineEntry }) {
  const { entry, refusal } = props.item;
  const title = entry.reason === null ? null : DECISION_TABLE[entry.reason].title;
  const issues = refusal?.reason === entry.reason ? (refusal.issues ?? []) : [];
  return (
    <tr class="more">
      <td colspan={10}>
        <details>
          <summary>Why, and what was received</summary>
          <p>
            <strong>{title}</strong>
            {refusal?.reason === entry.reason ? `: ${refusal.detail}` : null}
          </p>
          {issues.length === 0 ? null : (
            <table class="issues">
              <thead>
                <tr>
                  <th>Path</th>
                  <th>Issue</th>
                  <th>Expected</th>
                  <th>Received</th>
                </tr>
              </thead>
              <tbody>
                {issues.map((i) => (
                  <tr>
                    <td>
                      <code>{i.path === "" ? "(payload)" : i.path}</code>
                    </td>
                    <td>{i.message}</td>
                    <td>
                      <code>{i.expected ?? ""}</code>
                    </td>
                    <td>
                      <code>{i.received}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="muted">
            Payload as received ({entry.content_type ?? "no Content-Type"}
            {entry.payload_truncated ? ", cut at the audit's cap" : ""}):
          </p>
          <pre>{entry.payload}</pre>
        </details>
      </td>
    </tr>
  );
}

/**
 * What the entry says in words: an operator's reason or note (with who acted), or that a
 * call's outcome came after the run was halted.
 */
function Note(props: { entry: AuditEntry }) {
  const { actor, note } = props.entry;
  return (
    <tr class="more note">
      <td colspan={10}>
        {note}
        {actor === null ? null : <span class="muted"> — {actor}</span>}
      </td>
    </tr>
  );
}

/**
 * One audit entry: its row, its note when it has one, and for a call with a reason the fold
 * below it.
 */
export function Entry(props: { item: TimelineEntry }) {
  const { entry } = props.item;
  const budget = entry.budget_after;
  return (
    <tbody id={`e-${entry.seq}`} data-seq={entry.seq} data-decision={entry.decision}>
      <tr>
        <td class="num">{entry.seq}</td>
        <td class="num" title={entry.at}>
          {time(entry.at)}
        </td>
        <td>
          <code>{entry.tool ?? "?"}</code>
        </td>
        <td>
          <DecisionBadge decision={entry.decision} />
        </td>
        <td>{entry.reason === null ? "" : <code>{entry.reason}</code>}</td>
        <td class="num">{entry.duration_ms === null ? "" : `${entry.duration_ms} ms`}</td>
        <td class="hide-narrow">
          {entry.idempotency_key === null ? "" : <code>{entry.idempotency_key}</code>}
        </td>
        <td class="hide-narrow">{entry.cache ?? ""}</td>
        <td class="num">
          {budget.mutations} mut · {budget.paid_calls} paid
        </td>
        <td class="num hide-narrow">{entry.status ?? ""}</td>
      </tr>
      {entry.note === null || entry.note === "" ? null : <Note entry={entry} />}
      {entry.reason === null ? null : <Why item={props.item} />}
    </tbody>
  );
}

/** The header row of the timeline table. */
export function TimelineHead() {
  return (
    <thead>
      <tr>
        <th>#</th>
        <th>Time (UTC)</th>
        <th>Tool</th>
        <th>Decision</th>
        <th>Reason</th>
        <th>Duration</th>
        <th class="hide-narrow">Idempotency key</th>
        <th class="hide-narrow">Cache</th>
        <th>Budget after</th>
        <th class="hide-narrow">HTTP</th>
      </tr>
    </thead>
  );
}
