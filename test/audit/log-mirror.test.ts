import { describe, expect, it } from "vitest";
import { FOLD_EVERY, openEntry } from "../../src/ledger/audit-log.ts";
import { within } from "../../src/ledger/kept.ts";
import { LogMirror } from "../../src/ledger/log-mirror.ts";
import { toolUsed } from "../../src/ledger/usage.ts";
import { verifyAudit } from "../helpers.ts";
import { entryCopy, type InRun, withOneEntry } from "./entries.ts";

/** What a test appends with: a fresh mirror over a run whose log holds one noop entry. */
interface Mirrored extends InRun {
  mirror: LogMirror;
  /** Append, in its own transaction, a copy of the first entry as `callId` with `decision`. */
  add: (callId: string, decision: string, of?: number | null, tool?: string) => number;
}

function withMirror<T>(use: (m: Mirrored) => T): Promise<{ run: string; seen: T }> {
  return withOneEntry("mirror", (r) => {
    const { storage, sql, row } = r;
    const mirror = new LogMirror();
    const add: Mirrored["add"] = (callId, decision, of = null, tool = "noop") => {
      const lease = decision === "pending" ? Date.now() + 1_000 : null;
      const draft = entryCopy(sql, callId, decision, { lease, tool });
      return within(storage, () => mirror.append(sql, row, draft, of).seq, [mirror]);
    };
    return use({ ...r, mirror, add });
  });
}

describe("what the RunLedger keeps of its log", () => {
  it("finds an open entry it appended exactly as the log stores it, and none once settled", async () => {
    const { run, seen } = await withMirror(({ sql, mirror, add }) => {
      const seq = add("c1", "pending");
      const whileOpen = { kept: mirror.openEntry(sql, "c1"), stored: openEntry(sql, "c1") };
      add("c1", "applied", seq);
      const settled = { kept: mirror.openEntry(sql, "c1"), stored: openEntry(sql, "c1") };
      return { seq, whileOpen, settled };
    });
    expect(seen.whileOpen.stored).toMatchObject({ seq: seen.seq, call_id: "c1" });
    // Every column, with the same value and type as a read of the log gives.
    expect(seen.whileOpen.kept).toStrictEqual(seen.whileOpen.stored);
    expect(seen.settled).toEqual({ kept: null, stored: null });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 3 });
  });

  it("reads an open entry it did not append from the log", async () => {
    const { seen } = await withMirror(({ sql, add }) => {
      const seq = add("c1", "pending");
      // Another instance of the object (before an eviction) appended it: this one starts empty.
      const fresh = new LogMirror();
      const found = fresh.openEntry(sql, "c1");
      add("c1", "applied", seq);
      return { found: found?.seq, after: fresh.openEntry(sql, "c1") };
    });
    expect(seen.found).toBeGreaterThan(1);
    expect(seen.after).toBeNull();
  });

  it("counts a tool's uses as the log does, across a fold of the counts", async () => {
    const { seen } = await withMirror(({ sql, mirror, add }) => {
      const first = mirror.toolUsed(sql, "add_comment");
      let seq = 1;
      while (seq < FOLD_EVERY + 4) {
        const opened = add(`c${seq}`, "pending", null, seq % 3 === 0 ? "add_comment" : "noop");
        seq = add(`c${seq}`, "applied", opened, seq % 3 === 0 ? "add_comment" : "noop");
      }
      return {
        first,
        kept: { comment: mirror.toolUsed(sql, "add_comment"), noop: mirror.toolUsed(sql, "noop") },
        stored: { comment: toolUsed(sql, "add_comment"), noop: toolUsed(sql, "noop") },
      };
    });
    expect(seen.first).toBe(0);
    expect(seen.stored.comment).toBeGreaterThan(10);
    expect(seen.kept).toEqual(seen.stored);
  });

  it("forgets what a failed transaction appended: its entries were rolled back", async () => {
    const { run, seen } = await withMirror(({ storage, sql, row, mirror, add }) => {
      const before = mirror.toolUsed(sql, "noop");
      const draft = entryCopy(sql, "gone", "pending");
      const failing = () =>
        within(storage, () => {
          mirror.append(sql, row, draft, null);
          throw new Error("after the append");
        }, [mirror]);
      expect(failing).toThrow("after the append");
      const next = add("kept", "pending");
      return {
        before,
        gone: mirror.openEntry(sql, "gone"),
        used: mirror.toolUsed(sql, "noop"),
        next,
      };
    });
    expect(seen.gone).toBeNull();
    // The rolled-back use is not counted; the next pending entry's is.
    expect(seen.used).toBe(seen.before + 1);
    // The chain's tip was forgotten too: the next entry follows the last one stored.
    expect(seen.next).toBe(2);
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
  });
});
