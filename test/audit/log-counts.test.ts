import { describe, expect, it } from "vitest";
import {
  append,
  decisionCounts,
  FOLD_EVERY,
  foldCounts,
} from "../../src/ledger/audit/audit-log.ts";
import { trimArchived } from "../../src/ledger/audit/audit-trim.ts";
import { toolCalls } from "../../src/ledger/run/usage.ts";
import { verifyAudit } from "../helpers.ts";
import { entryCopy, type InRun, withOneEntry } from "./entries.ts";

/** What a test appends with, inside the run's object. */
interface Appender extends Omit<InRun, "row"> {
  /**
   * Append a copy of the run's first entry as call `callId` with `decision`, `of` an entry; a
   * pending one is charged to its tool (the noop), as an admission is.
   */
  add: (callId: string, decision: string, of?: number | null, lease?: number) => number;
}

/**
 * A run with one real entry (a noop), then `use` inside its object with an append of copies of
 * that entry.
 */
function withRun<T>(use: (a: Appender) => T): Promise<{ run: string; seen: T }> {
  return withOneEntry("log", ({ storage, sql, row }) => {
    const add: Appender["add"] = (callId, decision, of = null, lease) =>
      append(sql, row, entryCopy(sql, callId, decision, { lease }), of).seq;
    return use({ storage, sql, add });
  });
}

describe("the log across transactions: its chain, open calls and counts", () => {
  it("links the entry after a failed transaction to the last one kept", async () => {
    const { run, seen } = await withRun(({ storage, sql, add }) => {
      const failing = () =>
        storage.transactionSync(() => {
          add("rolled-back", "applied");
          throw new Error("after the append");
        });
      expect(failing).toThrow("after the append");
      const kept = storage.transactionSync(() => add("kept", "applied"));
      const stored = sql.exec<{ seq: number }>("SELECT seq FROM audit ORDER BY seq").toArray();
      return { kept, stored: stored.map((r) => r.seq) };
    });
    expect(seen).toEqual({ kept: 2, stored: [1, 2] });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
  });

  it("carries the counts and open calls with each insert: pending, then its outcome", async () => {
    const { seen } = await withRun(({ storage, sql, add }) => {
      const counts = () => decisionCounts(sql);
      const open = () =>
        sql
          .exec<{ seq: number }>("SELECT seq FROM open_call")
          .toArray()
          .map((r) => r.seq);
      const seq = storage.transactionSync(() => add("c1", "pending", null, 1_000));
      const whilePending = { counts: counts(), open: open() };
      storage.transactionSync(() => add("c1", "applied", seq));
      return { seq, whilePending, settled: { counts: counts(), open: open() } };
    });
    expect(seen.whilePending).toEqual({ counts: { applied: 1, pending: 1 }, open: [seen.seq] });
    expect(seen.settled).toEqual({ counts: { applied: 2 }, open: [] });
  });

  it("counts decisions and tool uses off the log, folded every FOLD_EVERY entries and before a trim", async () => {
    const { seen } = await withRun(({ storage, sql, add }) => {
      const stored = () =>
        Object.fromEntries(
          sql
            .exec<{ decision: string; n: number }>(
              "SELECT decision, n FROM decision_count UNION ALL SELECT tool, used FROM tool_use",
            )
            .toArray()
            .map((r) => [r.decision, r.n]),
        );
      const counts = () => ({ ...decisionCounts(sql), ...toolCalls(sql) });
      const through = () => sql.exec<{ t: number }>("SELECT counted_through AS t FROM run").one().t;
      // The noop's entry is seq 1; a pending entry and its outcome every round, and an escalation.
      const at: { seq: number; counts: Record<string, number>; stored: object; through: number }[] =
        [];
      let seq = 1;
      while (seq < FOLD_EVERY + 3) {
        const opened = storage.transactionSync(() => add(`c${seq}`, "pending", null, 1_000));
        const decision = opened % 7 === 0 ? "escalate" : "applied";
        seq = storage.transactionSync(() => add(`c${opened}`, decision, opened));
        if (seq === FOLD_EVERY - 1 || seq === FOLD_EVERY + 1) {
          at.push({ seq, counts: counts(), stored: stored(), through: through() });
        }
      }
      const open = storage.transactionSync(() => add("still-open", "pending", null, 1_000));
      const before = counts();
      // A trim folds the log first: the counts stay what they were with entries gone.
      const trimmed = storage.transactionSync(() => trimArchived(sql, 100, Date.now()));
      const left = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit").one().n;
      const afterTrim = { counts: counts(), through: through() };
      // Folding again with nothing new changes nothing.
      storage.transactionSync(() => foldCounts(sql));
      return { at, open, before, trimmed, left, afterTrim, after: counts() };
    });
    const half = (FOLD_EVERY - 2) / 2;
    // Before the first fold the tables hold nothing (the real noop wrote no count either); the
    // counts come from the log: the noop and each pending entry charged the noop tool.
    expect(seen.at[0]).toEqual({
      seq: FOLD_EVERY - 1,
      counts: {
        applied: 1 + half - Math.floor(half / 7),
        escalate: Math.floor(half / 7),
        noop: 1 + half,
      },
      stored: {},
      through: 0,
    });
    // Entry FOLD_EVERY (a pending one) folded the log into the tables, through itself.
    expect(seen.at[1]?.through).toBe(FOLD_EVERY);
    expect(seen.at[1]?.stored).toMatchObject({ pending: 1, noop: 1 + FOLD_EVERY / 2 });
    expect(seen.at[1]?.counts).toMatchObject({ noop: 1 + FOLD_EVERY / 2 });
    // Each call counted once: the noop, one per pending entry and its outcome, the open one.
    const { noop, ...decisions } = seen.before;
    const calls = 1 + (seen.open - 2) / 2 + 1;
    expect(Object.values(decisions).reduce((a, b) => a + b, 0)).toBe(calls);
    expect(noop).toBe(calls);
    expect(seen.before.pending).toBe(1);
    expect(seen.trimmed).toBe(true);
    expect(seen.left).toBeLessThan(seen.open - 80);
    expect(seen.afterTrim).toEqual({ counts: seen.before, through: seen.open });
    expect(seen.after).toEqual(seen.before);
  });
});
