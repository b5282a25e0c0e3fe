import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { EntryDraft } from "../../src/ledger/audit/audit-log.ts";
import type { AuditRow, RunRow } from "../../src/ledger/views.ts";
import { newRun, propose, runLedger } from "../helpers.ts";

/**
 * The run's first entry as a draft a test can append copies of through the ledger's own
 * append: everything the append sets itself (seq, time, `of`, the chain's links) left out.
 */
export function firstDraft(sql: SqlStorage): EntryDraft {
  const first = sql.exec<AuditRow>("SELECT * FROM audit WHERE seq = 1").one();
  const { seq: _s, at: _a, of: _o, prev: _p, hash: _h, ...draft } = first;
  return draft as unknown as EntryDraft;
}

/**
 * A copy of the run's first entry (a `noop`) as call `callId` with `decision`; a pending one
 * is charged to its tool, as an admission is. `lease` (none by default) and `tool` (the first
 * entry's by default) replace theirs.
 */
export function entryCopy(
  sql: SqlStorage,
  callId: string,
  decision: string,
  opts: { lease?: number | null; tool?: string } = {},
): EntryDraft {
  const first = firstDraft(sql);
  return {
    ...first,
    call_id: callId,
    tool: opts.tool ?? first.tool,
    decision,
    lease_expires_at: opts.lease ?? null,
    uses: decision === "pending" ? 1 : null,
  };
}

/** Inside a run's object: its storage and its run's row. */
export interface InRun {
  storage: DurableObjectStorage;
  sql: SqlStorage;
  row: RunRow;
}

/**
 * A new run (its id starting with `label`) whose log holds one real entry, a `noop`; then `use`
 * inside its object.
 */
export async function withOneEntry<T>(
  label: string,
  use: (r: InRun) => T,
): Promise<{ run: string; seen: T }> {
  const run = newRun(label);
  expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  const seen = await runInDurableObject(runLedger(run), (_i, state) => {
    const { storage } = state;
    const sql = storage.sql;
    const row = sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").one();
    return use({ storage, sql, row });
  });
  return { run, seen };
}
