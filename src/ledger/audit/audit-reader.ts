/**
 * Reading the run's log across the archive and the object: a page of `GET /v1/runs/{id}/audit`
 * comes from the object where it still holds every entry and from the archived segment where
 * some were trimmed; verifying recomputes the whole chain, every archived segment from R2 first
 * and then what the object holds past them. A segment that is gone or unreadable is data: the
 * page names it, and verify reports it at its first seq.
 */
import { type ChainReport, genesis } from "../../core/audit-chain.ts";
import type { AuditEntry } from "../protocol.ts";
import { type AuditRow, auditEntry, type RunRow } from "../views.ts";
import { type SegmentRow, segments } from "./audit-archive.ts";
import { verifyLog, verifyStretch } from "./audit-log.ts";

/** A page of the log, or the archived segment it could not read. */
export type AuditPage =
  | { kind: "entries"; entries: AuditEntry[] }
  | { kind: "missing"; key: string; first_seq: number; problem: string };

type Read = { entries: AuditEntry[] } | { problem: string };

/** Reads segments from R2, keeping the last one in memory (pages walk a segment in turn). */
export class SegmentReader {
  private last: { key: string; entries: AuditEntry[] } | null = null;

  private readonly bucket: R2Bucket;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(bucket: R2Bucket) {
    this.bucket = bucket;
  }

  /** The segment's entries, or what is wrong with it. */
  async read(seg: SegmentRow, fresh = false): Promise<Read> {
    if (!fresh && this.last?.key === seg.r2_key) return { entries: this.last.entries };
    const object = await this.bucket.get(seg.r2_key);
    if (object === null) return { problem: `archived segment ${seg.r2_key} is missing` };
    const text = await object.text();
    try {
      const lines = text.split("\n").filter((l) => l !== "");
      const entries = lines.map((l) => JSON.parse(l) as AuditEntry);
      this.last = { key: seg.r2_key, entries };
      return { entries };
    } catch {
      return { problem: `archived segment ${seg.r2_key} is not NDJSON` };
    }
  }
}

function trimmedSegments(sql: SqlStorage, after: number): SegmentRow[] {
  return sql
    .exec<SegmentRow>(
      "SELECT * FROM audit_segment WHERE trimmed > 0 AND last_seq > ? ORDER BY first_seq",
      after,
    )
    .toArray();
}

function storedRows(sql: SqlStorage, after: number, upto: number, limit: number): AuditEntry[] {
  return sql
    .exec<AuditRow>(
      "SELECT * FROM audit WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
      after,
      upto,
      limit,
    )
    .toArray()
    .map(auditEntry);
}

/** Entries after `after`, oldest first, at most `limit`, wherever each is kept. */
export async function auditPage(
  sql: SqlStorage,
  reader: SegmentReader,
  after: number,
  limit: number,
): Promise<AuditPage> {
  const archived = trimmedSegments(sql, after);
  const out: AuditEntry[] = [];
  let cursor = after;
  while (out.length < limit) {
    const here = archived.find((s) => s.first_seq <= cursor + 1 && cursor + 1 <= s.last_seq);
    if (here !== undefined) {
      const got = await reader.read(here);
      if ("problem" in got) {
        return { kind: "missing", key: here.r2_key, first_seq: here.first_seq, ...got };
      }
      const taken = got.entries.filter((e) => e.seq > cursor).slice(0, limit - out.length);
      out.push(...taken);
      cursor = taken.at(-1)?.seq ?? here.last_seq;
      continue;
    }
    const next = archived.find((s) => s.first_seq > cursor);
    const upto = next === undefined ? Number.MAX_SAFE_INTEGER : next.first_seq - 1;
    const room = limit - out.length;
    const rows = storedRows(sql, cursor, upto, room);
    out.push(...rows);
    if (rows.length === room || next === undefined) break;
    cursor = next.first_seq - 1;
  }
  return { kind: "entries", entries: out };
}

/**
 * The object's own copies of a segment's entries (those not trimmed) must be the archived
 * ones, and only trimmed entries may be absent: else the object's log was changed after the
 * segment was written. Answers the first seq that differs, or null.
 */
function compareCopies(
  sql: SqlStorage,
  seg: SegmentRow,
  archived: AuditEntry[],
): { first_bad_seq: number; problem: string } | null {
  const rows = sql
    .exec<AuditRow>(
      "SELECT * FROM audit WHERE seq BETWEEN ? AND ? ORDER BY seq",
      seg.first_seq,
      seg.last_seq,
    )
    .toArray();
  for (const row of rows) {
    const same = archived[row.seq - seg.first_seq];
    if (same === undefined || JSON.stringify(auditEntry(row)) !== JSON.stringify(same)) {
      const problem = `the run's copy of entry ${row.seq} is not the archived one (edited, inserted or reordered)`;
      return { first_bad_seq: row.seq, problem };
    }
  }
  if (rows.length + seg.trimmed === seg.last_seq - seg.first_seq + 1) return null;
  const held = new Set(rows.map((r) => r.seq));
  let gone = seg.first_seq;
  while (held.has(gone)) gone++;
  return { first_bad_seq: gone, problem: `entry ${gone} is missing (deleted) from the run's copy` };
}

/** Recompute the whole chain: the archived segments from R2, then the object's later entries. */
export async function verifyArchived(
  sql: SqlStorage,
  reader: SegmentReader,
  run: RunRow,
): Promise<ChainReport> {
  let prev = genesis(run.tenant, run.run_id);
  let from = 1;
  let total = 0;
  let head: ChainReport["head"] = null;
  for (const seg of segments(sql)) {
    const bad = (problem: string): ChainReport => ({
      ok: false,
      entries: total,
      head,
      first_bad_seq: seg.first_seq,
      problem,
    });
    const got = await reader.read(seg, true);
    if ("problem" in got) return bad(got.problem);
    const entries = got.entries as unknown as Record<string, unknown>[];
    const report = verifyStretch(entries, run, from, prev);
    total += report.entries;
    if (!report.ok) return { ...report, entries: total, head };
    if (report.head?.seq !== seg.last_seq || report.head.hash !== seg.head_hash) {
      return bad(
        `archived segment ${seg.r2_key} does not end at its recorded head ${seg.last_seq}`,
      );
    }
    const copy = compareCopies(sql, seg, got.entries);
    if (copy !== null) return { ok: false, entries: total, head, ...copy };
    head = report.head;
    prev = head.hash;
    from = head.seq + 1;
  }
  const rest = verifyLog(sql, run, { from, prev });
  return { ...rest, entries: total + rest.entries, head: rest.head ?? head };
}
