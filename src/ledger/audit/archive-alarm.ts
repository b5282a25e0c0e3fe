/**
 * When the RunLedger's one alarm rings for the archive. It is armed when a run is created (for
 * its deadline or its idle end), when it is halted, and when an append fills a segment (once
 * per segment, with no storage read on the call path: the seq to watch for is kept in memory).
 * After each ring the archive step sets the alarm for the next work of any kind, so an idle
 * check that finds recent activity re-arms itself rather than the calls moving the alarm.
 */
import { nextWake } from "../run/abandon.ts";
import type { RunRow } from "../views.ts";
import {
  type ArchiveConfig,
  type ArchiveScope,
  archiveConfig,
  archivedThrough,
  archiveRun,
  archiveWake,
} from "./audit-archive.ts";

/** How soon entries appended after a run ended are archived. */
const AFTER_END_MS = 60_000;

/** The archive's side of the alarm, for one RunLedger instance. */
export class ArchiveAlarm {
  /** The seq at which the next segment is full: appending it arms the alarm, once. */
  private armAt = Number.POSITIVE_INFINITY;
  /** The last seq, appended after the run ended, for which the alarm was armed. */
  private endArmed = 0;
  /**
   * When the archive next has work, as last computed or armed (null: none). It may be early
   * (activity since moves an idle end later; the ring then finds nothing and re-arms), never
   * late, so moving the alarm to it never delays the archive.
   */
  private due: number | null = null;

  private readonly storage: DurableObjectStorage;
  private readonly scope: ArchiveScope;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(storage: DurableObjectStorage, scope: ArchiveScope) {
    this.storage = storage;
    this.scope = scope;
  }

  /**
   * Read where the next segment ends and when the archive is due (in the object's start-up),
   * for the run of row `run`. An object with no run yet has nothing archived and nothing due,
   * and reads nothing.
   */
  start(run: RunRow | null): void {
    const cfg = archiveConfig(this.scope.env);
    if (run === null) {
      this.armAt = cfg.segmentEntries;
      return;
    }
    this.armAt = archivedThrough(this.scope.sql) + cfg.segmentEntries;
    this.due = archiveWake(this.scope, cfg, Date.now());
  }

  /**
   * After an append of entry `seq`: ring now when it fills a segment; for a run that had
   * ended (its entries are archived when written), ring within `AFTER_END_MS`, so a burst
   * of refusals of a halted run becomes one segment.
   */
  appended(seq: number, ended: boolean): void {
    if (seq >= this.armAt) {
      this.armAt = seq + archiveConfig(this.scope.env).segmentEntries;
      // An alarm set for now moves no earlier one later, so nothing needs reading first.
      this.due = Date.now();
      void this.storage.setAlarm(this.due);
    } else if (ended && seq > this.endArmed) {
      this.endArmed = seq;
      this.due = earliest(this.due, Date.now() + AFTER_END_MS);
      void wakeBy(this.storage, this.due);
    }
  }

  /** A new run: ring at its deadline or when it would have been idle for the retention. */
  async created(run: Pick<RunRow, "deadline_at">, now: number): Promise<void> {
    const end = Math.min(run.deadline_at, now + archiveConfig(this.scope.env).retentionMs);
    this.due = earliest(this.due, end);
    await wakeBy(this.storage, end);
  }

  /**
   * Write the segments due by `now` and trim, then set the alarm for the next work of any
   * kind; answers how many segments were written.
   */
  async ring(cfg: ArchiveConfig, now: number): Promise<number> {
    const written = await archiveRun(this.scope, cfg, now);
    this.armAt = archivedThrough(this.scope.sql) + cfg.segmentEntries;
    this.due = archiveWake(this.scope, cfg, now);
    const next = earliest(nextWake(this.scope.sql), this.due);
    if (next === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(Math.max(next, Date.now()));
    return written;
  }
}

/** Make sure the alarm rings no later than `at` (null: nothing to wait for). */
export async function wakeBy(storage: DurableObjectStorage, at: number | null): Promise<void> {
  if (at === null) return;
  const current = await storage.getAlarm();
  if (current === null || current > at) await storage.setAlarm(at);
}

/** The earlier of two times, either of which may be absent. */
function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}
