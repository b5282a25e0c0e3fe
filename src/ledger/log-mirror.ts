/**
 * What the RunLedger keeps in memory of its own log (kept.ts), so a call does not read it
 * back: the chain's tip (audit-log.ts), the calls still open that this object appended (a
 * settle, a withdrawal or a takeover finds the entry it closes without a query), and the uses
 * of each capped tool read so far (a capped tool's call is counted without summing the log).
 * All follow every append, which goes through here; a call this object did not open, or a
 * tool not read yet, is read from storage. A transaction that fails forgets them all: its
 * appends were rolled back.
 */
import { append, ChainTip, openEntry } from "./audit-log.ts";
import type { Kept } from "./kept.ts";
import { type ToolUses, toolUsed } from "./usage.ts";
import type { AuditRow, EntryDraft, RunRow } from "./views.ts";

/** The chain's tip, the run's open calls and tools' uses, as the object's appends left them. */
export class LogMirror implements Kept, ToolUses {
  private readonly tip = new ChainTip();
  /**
   * Open entries this object appended, by call, as stored (a draft sets every column: entryOf);
   * an outcome's append drops its call's.
   */
  private readonly open = new Map<string, AuditRow>();
  /** Uses per tool, for the tools read since the object started (or last forgot). */
  private readonly uses = new Map<string, number>();

  /** The open (pending, unsettled) entry of a call, or null. */
  openEntry(sql: SqlStorage, callId: string): AuditRow | null {
    return this.open.get(callId) ?? openEntry(sql, callId);
  }

  /** Calls charged of `tool` so far. */
  toolUsed(sql: SqlStorage, tool: string): number {
    let used = this.uses.get(tool);
    if (used === undefined) {
      used = toolUsed(sql, tool);
      this.uses.set(tool, used);
    }
    return used;
  }

  /** The seq of the log's last entry (0 when it has none). */
  lastSeq(sql: SqlStorage, run: RunRow): number {
    return this.tip.of(sql, run).seq;
  }

  /** The object built its storage just now: the log has no entry to read. */
  startsEmpty(): void {
    this.tip.startsEmpty();
  }

  /** Append one entry of run `run`, `of` the entry it settles (or null); answers it as stored. */
  append(sql: SqlStorage, run: RunRow, draft: EntryDraft, of: number | null): AuditRow {
    const row = append(sql, this.tip, run, draft, of);
    this.appended(row);
    return row;
  }

  /**
   * An append wrote `row`. A pending entry opens its call and an outcome closes the one it
   * names, as the insert's trigger keeps `open_call` (migrations.ts); an entry's `uses`
   * adds to its tool's.
   */
  private appended(row: AuditRow): void {
    if (row.decision === "pending") this.open.set(row.call_id, row);
    if (row.of !== null && this.open.get(row.call_id)?.seq === row.of) {
      this.open.delete(row.call_id);
    }
    if (row.tool === null || row.uses === null) return;
    const used = this.uses.get(row.tool);
    if (used !== undefined) this.uses.set(row.tool, used + row.uses);
  }

  forget(): void {
    this.tip.forget();
    this.open.clear();
    this.uses.clear();
  }
}
