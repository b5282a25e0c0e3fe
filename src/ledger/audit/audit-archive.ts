/**
 * The audit archive: the run's log written to the R2 bucket `AUDIT_ARCHIVE` in NDJSON segments
 * `audit/{tenant}/{run}/{first:012}-{last:012}.ndjson`, one line per entry exactly as
 * `GET /v1/runs/{id}/audit` publishes it, each object carrying the signed head at its last entry
 * in its custom metadata. The alarm writes a segment every `segmentEntries` entries and, when
 * the run ends (halted, past its deadline, idle for the retention), one for the rest. A segment
 * is a pure function of its entries (the head is signed at the last entry's own time, and
 * Ed25519 is deterministic), so a crash between the put and its row rewrites the same object.
 * Archived entries older than the retention are then trimmed from `audit` (audit-trim.ts).
 */
import { type SignedHead, signHead } from "../../core/audit-head.ts";
import { readRun } from "../run/run-row.ts";
import { type AuditRow, auditEntry, type RunRow } from "../views.ts";
import { head } from "./audit-log.ts";
import { auditTrimWake, trimArchived } from "./audit-trim.ts";
import { runSigningKey } from "./signing-key.ts";

/** How the archive is cut and how long the object keeps archived entries. */
export interface ArchiveConfig {
  /** Entries per segment (`AUDIT_SEGMENT_ENTRIES`, default 1,000). */
  segmentEntries: number;
  /** How long archived entries stay in the object, and how long idle ends a run (ms). */
  retentionMs: number;
}

/** A segment as recorded in the run's storage (`audit_segment`). */
export interface SegmentRow {
  [column: string]: SqlStorageValue;
  /** Seq of its first entry. */
  first_seq: number;
  /** Seq of its last entry. */
  last_seq: number;
  /** Hash of its last entry (the head in its metadata). */
  head_hash: string;
  /** Its R2 key. */
  r2_key: string;
  /** When it was written (epoch ms). */
  archived_at: number;
  /** How many of its entries were trimmed from the object since. */
  trimmed: number;
}

/** What the archive needs of the RunLedger. */
export interface ArchiveScope {
  /** The worker's bindings (AUDIT_ARCHIVE, the signing secret). */
  env: Env;
  /** The object's SQL storage. */
  sql: SqlStorage;
  /** Run `f` as one storage transaction. */
  transact: <T>(f: () => T) => T;
}

const DAY_MS = 86_400_000;

function numberVar(text: string | undefined, fallback: number, min: number): number {
  const n = Number(text);
  return text === undefined || text.trim() === "" || !Number.isFinite(n) || n < min ? fallback : n;
}

/** The configuration from `AUDIT_SEGMENT_ENTRIES` and `AUDIT_RETENTION_DAYS`. */
export function archiveConfig(env: Env): ArchiveConfig {
  const vars = env as { AUDIT_SEGMENT_ENTRIES?: string; AUDIT_RETENTION_DAYS?: string };
  return {
    segmentEntries: Math.floor(numberVar(vars.AUDIT_SEGMENT_ENTRIES, 1_000, 1)),
    retentionMs: numberVar(vars.AUDIT_RETENTION_DAYS, 7, 0) * DAY_MS,
  };
}

/** The R2 key of the segment `first`..`last` of a run. */
export function segmentKey(tenant: string, run: string, first: number, last: number): string {
  const pad = (n: number) => String(n).padStart(12, "0");
  return `audit/${tenant}/${run}/${pad(first)}-${pad(last)}.ndjson`;
}

/** The run's segments, oldest first. */
export function segments(sql: SqlStorage): SegmentRow[] {
  return sql.exec<SegmentRow>("SELECT * FROM audit_segment ORDER BY first_seq").toArray();
}

/** The last archived seq (0 when nothing is). */
export function archivedThrough(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COALESCE(MAX(last_seq), 0) AS n FROM audit_segment").one()
    .n;
}

function lastActivity(sql: SqlStorage, run: RunRow): number {
  const last = sql
    .exec<{ at: number }>("SELECT at FROM audit ORDER BY seq DESC LIMIT 1")
    .toArray()[0];
  return last?.at ?? run.created_at;
}

/** When the run counts as ended: halted, past its deadline, or idle for the retention. */
function endsAt(sql: SqlStorage, run: RunRow, cfg: ArchiveConfig): number {
  const idle = lastActivity(sql, run) + cfg.retentionMs;
  return Math.min(run.halted_at ?? idle, run.deadline_at, idle);
}

/** The last seq of the next segment due by `now`, or null when none is. */
function dueSegmentEnd(sql: SqlStorage, run: RunRow, cfg: ArchiveConfig, now: number) {
  const from = archivedThrough(sql) + 1;
  const last = head(sql)?.seq ?? 0;
  if (last < from) return null;
  if (last - from + 1 >= cfg.segmentEntries) return from + cfg.segmentEntries - 1;
  return endsAt(sql, run, cfg) <= now ? last : null;
}

/** The segment's NDJSON and its signed head: the same bytes every time it is built. */
export async function buildSegment(
  sql: SqlStorage,
  run: RunRow,
  range: { first: number; last: number },
  key: Parameters<typeof signHead>[1],
): Promise<{ body: string; head: SignedHead }> {
  const rows = sql
    .exec<AuditRow>(
      "SELECT * FROM audit WHERE seq BETWEEN ? AND ? ORDER BY seq",
      range.first,
      range.last,
    )
    .toArray();
  const end = rows.at(-1);
  if (rows.length !== range.last - range.first + 1 || end === undefined || end.seq !== range.last) {
    throw new Error(`audit entries ${range.first}..${range.last} are not all in storage`);
  }
  const body = rows.map((r) => `${JSON.stringify(auditEntry(r))}\n`).join("");
  const claim = { tenant: run.tenant, run: run.run_id, seq: end.seq, hash: end.hash ?? "" };
  return { body, head: await signHead({ ...claim, at: new Date(end.at).toISOString() }, key) };
}

/** The object's custom metadata: the head, every value a string as R2 requires. */
export function headMetadata(h: SignedHead): Record<string, string> {
  const { tenant, run, seq, hash, at, kid, sig } = h;
  return { tenant, run, seq: String(seq), hash, at, kid, sig };
}

/**
 * Write every segment due by `now`, then trim; answers how many segments were written. A run
 * with no usable signing key is not archived (logged), and so nothing of it is trimmed.
 */
export async function archiveRun(s: ArchiveScope, cfg: ArchiveConfig, now: number) {
  const run = readRun(s.sql);
  if (run === null) return 0;
  const key = runSigningKey(s.env, run.local === 1);
  let written = 0;
  for (let last = dueSegmentEnd(s.sql, run, cfg, now); last !== null; ) {
    if (key === null) {
      console.error(`no audit signing key: run ${run.run_id} is not archived; its log is kept`);
      break;
    }
    const first = archivedThrough(s.sql) + 1;
    const r2Key = segmentKey(run.tenant, run.run_id, first, last);
    const segment = await buildSegment(s.sql, run, { first, last }, key);
    // Outside any transaction: the object waits on R2, never inside a decision.
    await s.env.AUDIT_ARCHIVE.put(r2Key, segment.body, {
      customMetadata: headMetadata(segment.head),
      httpMetadata: { contentType: "application/x-ndjson; charset=utf-8" },
    });
    s.transact(() => {
      s.sql.exec(
        `INSERT OR REPLACE INTO audit_segment (first_seq, last_seq, head_hash, r2_key, archived_at)
         VALUES (?, ?, ?, ?, ?)`,
        first,
        last,
        segment.head.hash,
        r2Key,
        now,
      );
    });
    written++;
    last = dueSegmentEnd(s.sql, run, cfg, now);
  }
  s.transact(() => trimArchived(s.sql, archivedThrough(s.sql), now - cfg.retentionMs));
  return written;
}

/** When the archive next has work: a segment to write or entries to trim; null for none. */
export function archiveWake(s: ArchiveScope, cfg: ArchiveConfig, now: number): number | null {
  const run = readRun(s.sql);
  if (run === null) return null;
  const through = archivedThrough(s.sql);
  const trim = auditTrimWake(s.sql, through, cfg.retentionMs);
  const last = head(s.sql)?.seq ?? 0;
  // Without a key nothing is written, so waking for it would only spin.
  if (last <= through || runSigningKey(s.env, run.local === 1) === null) return trim;
  const write = last - through >= cfg.segmentEntries ? now : endsAt(s.sql, run, cfg);
  return trim === null ? write : Math.min(trim, write);
}
