/**
 * The run's audit log, append-only and hash-chained (the rule: src/core/audit-chain.ts). An
 * entry, once written, is never changed or deleted here: an admitted call's outcome, its
 * abandonment included, is a second entry naming the first (`of`). The calls still open
 * (pending with no outcome yet, with their leases) are kept beside the log by a trigger on the
 * insert (migrations.ts). The count of calls per decision (an outcome moves its call from
 * `pending`) and of uses per tool (an entry's `uses`) are the log's own: counted from the
 * entries since the last fold, each folded into its table every FOLD_EVERY entries and before
 * a trim. Every function here runs inside the caller's `transactionSync`: hashing is
 * synchronous, so no other request gets in.
 */
import { type ChainReport, entryHash, genesis, verifyChain } from "../../core/audit-chain.ts";
import { type AuditRow, auditEntry, type EntryDraft, type RunRow } from "../views.ts";

export type { EntryDraft };

/** A link of the chain: an entry's seq and hash (seq 0: the run's genesis). */
export type Link = { seq: number; hash: string };

/** The link an empty log starts from: the run's genesis. */
function genesisLink(run: RunRow): Link {
  return { seq: 0, hash: genesis(run.tenant, run.run_id) };
}

/**
 * Every column of the `audit` table, in its order (test/repo/fresh-schema.test.ts holds them
 * to the schema): one INSERT text for every entry, whichever columns its draft leaves unset.
 */
export const AUDIT_COLUMNS = [
  "seq",
  "call_id",
  "at",
  "tool",
  "form",
  "decision",
  "reason",
  "status",
  "idempotency_key",
  "fingerprint",
  "cache",
  "duration_ms",
  "mutations_used",
  "paid_used",
  "content_type",
  "payload",
  "payload_truncated",
  "lease_expires_at",
  "approval_id",
  "actor",
  "note",
  "resolves",
  "of",
  "prev",
  "hash",
  "uses",
  "principal",
  "upstream",
] as const;

const INSERT_ENTRY = `INSERT INTO audit (${AUDIT_COLUMNS.join(", ")})
  VALUES (${AUDIT_COLUMNS.map(() => "?").join(", ")})`;

/**
 * Append one entry after the log's last, `of` the entry it settles (or null); answers it.
 * `known` is the log's last link when the caller knows it (the entry it appended last), so
 * the append need not read it back.
 */
export function append(
  sql: SqlStorage,
  run: RunRow,
  draft: EntryDraft,
  of: number | null,
  known: Link | null = null,
): AuditRow {
  const last = known ?? head(sql) ?? genesisLink(run);
  const row: AuditRow = {
    ...draft,
    seq: last.seq + 1,
    at: Date.now(),
    of,
    prev: last.hash,
    hash: "",
  };
  row.hash = entryHash(auditEntry(row) as unknown as Record<string, unknown>);
  sql.exec(INSERT_ENTRY, ...AUDIT_COLUMNS.map((c) => row[c] ?? null));
  // The open calls follow in the insert's own trigger (migrations.ts).
  if (row.seq % FOLD_EVERY === 0) foldCounts(sql);
  return row;
}

/** The open (pending, unsettled) entry of a call, or null. */
export function openEntry(sql: SqlStorage, callId: string): AuditRow | null {
  return (
    sql
      .exec<AuditRow>(
        "SELECT a.* FROM open_call o JOIN audit a ON a.seq = o.seq WHERE o.call_id = ?",
        callId,
      )
      .toArray()[0] ?? null
  );
}

/** Open entries whose lease ran out by `now`. */
export function expiredOpen(sql: SqlStorage, now: number): AuditRow[] {
  return sql
    .exec<AuditRow>(
      `SELECT a.* FROM open_call o JOIN audit a ON a.seq = o.seq
       WHERE o.lease_expires_at <= ? ORDER BY o.seq`,
      now,
    )
    .toArray();
}

/**
 * Entries between two folds of the counts: a status read or a capped tool's call counts at
 * most this many from the log, and one append in this many writes the counts.
 */
export const FOLD_EVERY = 128;

/** The entries not yet folded into decision_count and tool_use. */
export const UNFOLDED = "seq > (SELECT COALESCE(MAX(counted_through), 0) FROM run)";

/** Uses per tool that the entries not yet folded add (a tool none of them charged: no row). */
export const UNFOLDED_USES = `SELECT tool, SUM(uses) AS used FROM audit
  WHERE ${UNFOLDED} AND uses IS NOT NULL GROUP BY tool`;

/**
 * Each entry's decision counted against the entries not yet folded: one more of its decision,
 * and an outcome (`of` an entry) one fewer pending.
 */
const UNFOLDED_COUNTS = `SELECT decision, COUNT(*) AS n FROM audit WHERE ${UNFOLDED} GROUP BY decision
  UNION ALL SELECT 'pending', -COUNT(*) FROM audit WHERE ${UNFOLDED} AND of IS NOT NULL`;

/** Calls per decision, each call counted once, by its latest entry. */
export function decisionCounts(sql: SqlStorage): Record<string, number> {
  const out: Record<string, number> = {};
  const rows = sql
    .exec<{ decision: string; n: number }>(
      `SELECT decision, SUM(n) AS n FROM (SELECT decision, n FROM decision_count
         UNION ALL ${UNFOLDED_COUNTS}) GROUP BY decision HAVING SUM(n) > 0`,
    )
    .toArray();
  for (const r of rows) out[r.decision] = r.n;
  return out;
}

/** Fold the entries not yet counted into decision_count and tool_use, through the last one. */
export function foldCounts(sql: SqlStorage): void {
  sql.exec(
    `INSERT INTO decision_count (decision, n)
       SELECT decision, SUM(n) FROM (${UNFOLDED_COUNTS}) WHERE true
       GROUP BY decision HAVING SUM(n) <> 0
       ON CONFLICT (decision) DO UPDATE SET n = n + excluded.n`,
  );
  sql.exec(
    `INSERT INTO tool_use (tool, used) SELECT tool, used FROM (${UNFOLDED_USES}) WHERE true
       ON CONFLICT (tool) DO UPDATE SET used = used + excluded.used`,
  );
  sql.exec(
    `UPDATE run SET counted_through = (SELECT MAX(seq) FROM audit)
       WHERE counted_through < (SELECT MAX(seq) FROM audit)`,
  );
}

/** The seq of the log's last entry (0 when it has none). */
export function lastSeq(sql: SqlStorage): number {
  return head(sql)?.seq ?? 0;
}

/** The last entry's seq and hash, or null for an empty log. */
export function head(sql: SqlStorage): Link | null {
  return (
    sql.exec<Link>("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").toArray()[0] ?? null
  );
}

/** Verify `entries` as the stretch of the run's chain that starts at seq `from`, after `prev`. */
export function verifyStretch(
  entries: Record<string, unknown>[],
  run: RunRow,
  from: number,
  prev: string,
): ChainReport {
  return verifyChain(entries, { tenant: run.tenant, run: run.run_id, from, prevOfFirst: prev });
}

/**
 * Recompute the chain as stored from `start` (the whole log by default; after the archived
 * segments: audit-reader.ts), a page at a time; the first bad seq if any.
 */
export function verifyLog(
  sql: SqlStorage,
  run: RunRow,
  start: { from: number; prev: string } = { from: 1, prev: genesis(run.tenant, run.run_id) },
  page = 1_000,
): ChainReport {
  let { from, prev } = start;
  let total = 0;
  let last: ChainReport["head"] = null;
  for (;;) {
    const rows = sql
      .exec<AuditRow>("SELECT * FROM audit WHERE seq >= ? ORDER BY seq LIMIT ?", from, page)
      .toArray();
    const entries = rows.map((r) => auditEntry(r) as unknown as Record<string, unknown>);
    const report = verifyStretch(entries, run, from, prev);
    total += report.entries;
    if (!report.ok) return { ...report, entries: total, head: last };
    if (report.head !== null) last = report.head;
    if (rows.length < page || report.head === null) return { ok: true, entries: total, head: last };
    from = report.head.seq + 1;
    prev = report.head.hash;
  }
}
