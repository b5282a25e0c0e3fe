/**
 * The audit as evidence, over HTTP: a signed head for a run's log
 * (`GET /v1/runs/{id}/audit/head`), a full recomputation of its chain
 * (`GET /v1/runs/{id}/audit/verify`) and the list of its archived segments
 * (`GET /v1/runs/{id}/audit/segments`), all for operators. The keys that verify a head are
 * public at `/.well-known/toolfence-audit-keys` (src/http/audit-keys.ts).
 */
import { signHead } from "../core/audit-head.ts";
import { refuse } from "../core/reasons.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { signingKey } from "./audit-keys.ts";
import type { AppContext } from "./context.ts";
import { problem } from "./problem.ts";
import { ledgerOf, unseen } from "./runs.ts";

/** `GET /v1/runs/{id}/audit/head`: `{tenant, run, seq, hash, at, kid, sig}`. */
export async function auditHead(c: AppContext, ref: RunRef): Promise<Response> {
  const last = await ledgerOf(c.env, ref).auditHead();
  if (last === null) return unseen(ref);
  const key = signingKey(c.env, c.req.raw);
  if (key === null) {
    console.error("AUDIT_SIGNING_KEY is not set: audit heads cannot be signed");
    return problem(
      refuse("internal_error", "No audit signing key is configured (AUDIT_SIGNING_KEY)."),
    );
  }
  const claim = { tenant: ref.tenant, run: ref.runId, ...last, at: new Date().toISOString() };
  return c.json(await signHead(claim, key));
}

/** `GET /v1/runs/{id}/audit/segments`: the segments archived to R2, oldest first. */
export async function auditSegments(c: AppContext, ref: RunRef): Promise<Response> {
  const rows = await ledgerOf(c.env, ref).auditSegments();
  if (rows === null) return unseen(ref);
  const segments = rows.map((s) => ({
    first_seq: s.first_seq,
    last_seq: s.last_seq,
    head_hash: s.head_hash,
    key: s.r2_key,
    archived_at: new Date(s.archived_at).toISOString(),
    trimmed: s.trimmed,
  }));
  return c.json({ run_id: ref.runId, segments });
}

/**
 * `GET /v1/runs/{id}/audit/verify`: `{ok, entries, head, first_bad_seq?, problem?}`, the
 * archived segments included.
 */
export async function auditVerify(c: AppContext, ref: RunRef): Promise<Response> {
  const report = await ledgerOf(c.env, ref).verifyAudit();
  return report === null ? unseen(ref) : c.json(report);
}
