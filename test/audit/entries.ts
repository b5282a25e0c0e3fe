import type { EntryDraft } from "../../src/ledger/audit-log.ts";
import type { AuditRow } from "../../src/ledger/views.ts";

/**
 * The run's first entry as a draft a test can append copies of through the ledger's own
 * append: everything the append sets itself (seq, time, `of`, the chain's links) left out.
 */
export function firstDraft(sql: SqlStorage): EntryDraft {
  const first = sql.exec<AuditRow>("SELECT * FROM audit WHERE seq = 1").one();
  const { seq: _s, at: _a, of: _o, prev: _p, hash: _h, ...draft } = first;
  return draft as unknown as EntryDraft;
}
