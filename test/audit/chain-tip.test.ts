import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { append, ChainTip, type EntryDraft } from "../../src/ledger/audit-log.ts";
import type { AuditRow, RunRow } from "../../src/ledger/views.ts";
import { newRun, propose, runLedger, verifyAudit } from "../helpers.ts";

/** A run with one real entry, and a draft copied from it for appends made here. */
async function runWithOneEntry(): Promise<string> {
  const run = newRun("tip");
  expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  return run;
}

function draftOf(sql: SqlStorage, callId: string, decision: string): EntryDraft {
  const first = sql.exec<AuditRow>("SELECT * FROM audit WHERE seq = 1").one();
  const { seq: _s, at: _a, of: _o, prev: _p, hash: _h, ...draft } = first;
  return { ...(draft as unknown as EntryDraft), call_id: callId, decision };
}

describe("the chain's tip kept between appends", () => {
  it("is forgotten with a transaction that fails, so the next entry links to the last one kept", async () => {
    const run = await runWithOneEntry();
    const seqs = await runInDurableObject(runLedger(run), (_i, state) => {
      const sql = state.storage.sql;
      const row = sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").one();
      const tip = new ChainTip();
      const failing = () =>
        tip.within(state.storage, () => {
          append(sql, tip, row, draftOf(sql, "rolled-back", "applied"), null);
          throw new Error("after the append");
        });
      expect(failing).toThrow("after the append");
      const kept = tip.within(state.storage, () =>
        append(sql, tip, row, draftOf(sql, "kept", "applied"), null),
      );
      const stored = sql.exec<{ seq: number }>("SELECT seq FROM audit ORDER BY seq").toArray();
      return { kept, stored: stored.map((r) => r.seq) };
    });
    expect(seqs).toEqual({ kept: 2, stored: [1, 2] });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
  });

  it("carries the counts and open calls with each insert: pending, then its outcome", async () => {
    const run = await runWithOneEntry();
    const seen = await runInDurableObject(runLedger(run), (_i, state) => {
      const sql = state.storage.sql;
      const row = sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").one();
      const tip = new ChainTip();
      const counts = () =>
        Object.fromEntries(
          sql
            .exec<{ decision: string; n: number }>("SELECT decision, n FROM decision_count")
            .toArray()
            .map((r) => [r.decision, r.n]),
        );
      const open = () =>
        sql
          .exec<{ seq: number }>("SELECT seq FROM open_call")
          .toArray()
          .map((r) => r.seq);
      const pending = { ...draftOf(sql, "c1", "pending"), lease_expires_at: 1_000 };
      const seq = tip.within(state.storage, () => append(sql, tip, row, pending, null));
      const whilePending = { counts: counts(), open: open() };
      tip.within(state.storage, () => append(sql, tip, row, draftOf(sql, "c1", "applied"), seq));
      return { seq, whilePending, settled: { counts: counts(), open: open() } };
    });
    expect(seen.whilePending).toEqual({ counts: { applied: 1, pending: 1 }, open: [seen.seq] });
    expect(seen.settled).toEqual({ counts: { applied: 2, pending: 0 }, open: [] });
  });
});
