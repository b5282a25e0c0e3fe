import { describe, expect, it } from "vitest";
import {
  append,
  ChainTip,
  decisionCounts,
  FOLD_EVERY,
  foldCounts,
} from "../../src/ledger/audit-log.ts";
import { trimArchived } from "../../src/ledger/audit-trim.ts";
import { FRESH_RUN_SCHEMA } from "../../src/ledger/fresh-schema.ts";
import { within } from "../../src/ledger/kept.ts";
import { toolCalls } from "../../src/ledger/usage.ts";
import { verifyAudit } from "../helpers.ts";
import { entryCopy, type InRun, withOneEntry } from "./entries.ts";

/** What a test appends with, inside the run's object. */
interface Appender extends Omit<InRun, "row"> {
  tip: ChainTip;
  /**
   * Append a copy of the run's first entry as call `callId` with `decision`, `of` an entry; a
   * pending one is charged to its tool (the noop), as an admission is.
   */
  add: (callId: string, decision: string, of?: number | null, lease?: number) => number;
}

/**
 * A run with one real entry (a noop), then `use` inside its object with a fresh tip and an
 * append of copies of that entry, each in its own transaction.
 */
function withRun<T>(use: (a: Appender) => T): Promise<{ run: string; seen: T }> {
  return withOneEntry("tip", ({ storage, sql, row }) => {
    const tip = new ChainTip();
    const add: Appender["add"] = (callId, decision, of = null, lease) =>
      append(sql, tip, row, entryCopy(sql, callId, decision, { lease }), of).seq;
    return use({ storage, sql, tip, add });
  });
}

describe("the chain's tip kept between appends", () => {
  it("is forgotten with a transaction that fails, so the next entry links to the last one kept", async () => {
    const { run, seen } = await withRun(({ storage, sql, tip, add }) => {
      const failing = () =>
        within(storage, () => {
          add("rolled-back", "applied");
          throw new Error("after the append");
        }, [tip]);
      expect(failing).toThrow("after the append");
      const kept = within(storage, () => add("kept", "applied"), [tip]);
      const stored = sql.exec<{ seq: number }>("SELECT seq FROM audit ORDER BY seq").toArray();
      return { kept, stored: stored.map((r) => r.seq) };
    });
    expect(seen).toEqual({ kept: 2, stored: [1, 2] });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
  });

  it("told the log is empty, still reads the log once a transaction fails", async () => {
    const { run, seen } = await withRun(({ storage, tip, add }) => {
      // What the object that built the storage is told; this log holds the noop's entry, so
      // a tip that kept believing it would link the next entry to the genesis as seq 1.
      tip.startsEmpty();
      const failing = () =>
        within(storage, () => {
          throw new Error("before the append");
        }, [tip]);
      expect(failing).toThrow("before the append");
      return within(storage, () => add("after", "applied"), [tip]);
    });
    expect(seen).toBe(2);
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
  });

  it("carries the counts and open calls with each insert: pending, then its outcome", async () => {
    const { seen } = await withRun(({ storage, sql, tip, add }) => {
      const counts = () => decisionCounts(sql);
      const open = () =>
        sql
          .exec<{ seq: number }>("SELECT seq FROM open_call")
          .toArray()
          .map((r) => r.seq);
      const seq = within(storage, () => add("c1", "pending", null, 1_000), [tip]);
      const whilePending = { counts: counts(), open: open() };
      within(storage, () => add("c1", "applied", seq), [tip]);
      return { seq, whilePending, settled: { counts: counts(), open: open() } };
    });
    expect(seen.whilePending).toEqual({ counts: { applied: 1, pending: 1 }, open: [seen.seq] });
    expect(seen.settled).toEqual({ counts: { applied: 2 }, open: [] });
  });

  it("counts decisions and tool uses off the log, folded every FOLD_EVERY entries and before a trim", async () => {
    const { seen } = await withRun(({ storage, sql, tip, add }) => {
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
        const opened = within(storage, () => add(`c${seq}`, "pending", null, 1_000), [tip]);
        const decision = opened % 7 === 0 ? "escalate" : "applied";
        seq = within(storage, () => add(`c${opened}`, decision, opened), [tip]);
        if (seq === FOLD_EVERY - 1 || seq === FOLD_EVERY + 1) {
          at.push({ seq, counts: counts(), stored: stored(), through: through() });
        }
      }
      const open = within(storage, () => add("still-open", "pending", null, 1_000), [tip]);
      const before = counts();
      // A trim folds the log first: the counts stay what they were with entries gone.
      sql.exec(FRESH_RUN_SCHEMA.rare);
      const trimmed = within(storage, () => trimArchived(sql, 100, Date.now()), [tip]);
      const left = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit").one().n;
      const afterTrim = { counts: counts(), through: through() };
      // Folding again with nothing new changes nothing.
      within(storage, () => foldCounts(sql), [tip]);
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
