/**
 * The triggers on the audit's insert that keep a table beside the log (audit-log.ts) in step
 * with each entry, as the migration steps (migrations.ts) create them. A shipped step's text
 * never changes, so each trigger a step made stays here as it was.
 */

/**
 * The trigger that kept the decision counts and the open calls in step with each entry, as
 * the migration steps that made it wrote it.
 */
export const AUDIT_APPENDED = `CREATE TRIGGER audit_appended AFTER INSERT ON audit BEGIN
     INSERT INTO decision_count (decision, n) VALUES (NEW.decision, 1)
       ON CONFLICT (decision) DO UPDATE SET n = n + 1;
     UPDATE decision_count SET n = n - 1 WHERE NEW.of IS NOT NULL AND decision = 'pending';
     INSERT INTO open_call (seq, call_id, lease_expires_at)
       SELECT NEW.seq, NEW.call_id, COALESCE(NEW.lease_expires_at, 0)
       WHERE NEW.decision = 'pending';
     DELETE FROM open_call WHERE NEW.of IS NOT NULL AND seq = NEW.of;
   END;`;

/**
 * The open calls follow each entry: a pending entry lists its call, its outcome drops it. The
 * trigger runs only for the entries that do either; the decision counts are the log's own
 * (audit-log.ts).
 */
export const OPEN_CALLS_FOLLOWED = `CREATE TRIGGER audit_appended AFTER INSERT ON audit
     WHEN NEW.decision = 'pending' OR NEW.of IS NOT NULL BEGIN
     INSERT INTO open_call (seq, call_id, lease_expires_at)
       SELECT NEW.seq, NEW.call_id, COALESCE(NEW.lease_expires_at, 0)
       WHERE NEW.decision = 'pending';
     DELETE FROM open_call WHERE NEW.of IS NOT NULL AND seq = NEW.of;
   END;`;
