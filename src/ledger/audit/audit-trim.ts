/**
 * Trimming archived entries from the run's own storage. Once an entry is in an archived
 * segment and older than the retention, the object may drop it: the archive keeps it and the
 * audit route reads it from there. Some entries are never trimmed, because the object still
 * reads them: the last one (the chain's next `prev` comes from it), an open (pending) one, an
 * open escalation and the entry it is `of` (its payload is shown from there: operator.ts), and
 * the entries of an approval still pending or approved. Each segment records how many of its
 * entries were trimmed, so a reader knows which segments to fetch.
 */
import { foldCounts } from "./audit-log.ts";

/** Entries that may go: archived through the bound seq, not the last, not still read by the object. */
const TRIMMABLE = `seq <= ?
  AND seq < (SELECT MAX(seq) FROM audit)
  AND seq NOT IN (SELECT seq FROM open_call)
  AND seq NOT IN (SELECT e.seq FROM audit e LEFT JOIN escalation_resolution r ON r.seq = e.seq
                  WHERE e.decision = 'escalate' AND r.seq IS NULL)
  AND seq NOT IN (SELECT e.of FROM audit e LEFT JOIN escalation_resolution r ON r.seq = e.seq
                  WHERE e.decision = 'escalate' AND r.seq IS NULL AND e.of IS NOT NULL)
  AND (approval_id IS NULL
       OR approval_id NOT IN (SELECT id FROM approval WHERE status IN ('pending', 'approved')))`;

/** Drop trimmable entries written by `cutoff`; answers whether any went. In a transaction. */
export function trimArchived(sql: SqlStorage, archivedThrough: number, cutoff: number): boolean {
  if (archivedThrough === 0) return false;
  // The counts are read off the log where not folded yet: fold them before it shrinks.
  foldCounts(sql);
  const gone =
    sql.exec(`DELETE FROM audit WHERE ${TRIMMABLE} AND at <= ?`, archivedThrough, cutoff)
      .rowsWritten > 0;
  if (gone) {
    sql.exec(
      `UPDATE audit_segment SET trimmed = (last_seq - first_seq + 1)
         - (SELECT COUNT(*) FROM audit WHERE seq BETWEEN first_seq AND last_seq)`,
    );
  }
  return gone;
}

/** When the oldest trimmable entry passes the retention, or null when none is waiting. */
export function auditTrimWake(
  sql: SqlStorage,
  archivedThrough: number,
  retentionMs: number,
): number | null {
  if (archivedThrough === 0) return null;
  const oldest = sql
    .exec<{ at: number | null }>(
      `SELECT MIN(at) AS at FROM audit WHERE ${TRIMMABLE}`,
      archivedThrough,
    )
    .one().at;
  return oldest === null ? null : oldest + retentionMs;
}
