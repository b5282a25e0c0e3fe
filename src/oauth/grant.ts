/**
 * A connector's grant: what a person consented to (tools, budget, deadline) and the runs it
 * owns. The library keeps the grant itself (props encrypted, tokens as hashes); the fence
 * keeps a per-tenant index of its grants in the same namespace, so the console can list a
 * tenant's grants (the library lists them per user only), tighten them and find their runs.
 *
 * | key | value |
 * |---|---|
 * | `tf-grant:<tenant>:<grant>` | {@link GrantRecord} as JSON, e.g. `{"grant":"g4f…","run":2,…}` |
 *
 * KV is eventually consistent and has no compare-and-set: the record is written when the
 * person consents, when an operator tightens the grant, and when its run rolls over. Two
 * isolates that roll the same grant over at once open the same next run (opening is
 * idempotent), so the race costs nothing; budgets themselves live in the RunLedger.
 */
import type { LimitOverride } from "../core/limits.ts";
import type { Admission } from "../core/people.ts";
import type { KeyPrincipal, PersonPrincipal } from "../core/principal.ts";

/** What the consent granted, stored with the grant as its props (the token carries them). */
export interface GrantProps {
  /** The fence's id of the grant: it names the grant's runs and its index record. */
  grant: string;
  /** The tenant whose tools and runs the grant uses. */
  tenant: string;
  /**
   * Who consented: the signed-in key's digest, `development` for the development key, or
   * `p-` and a digest of a person's issuer and subject.
   */
  subject: string;
  /** Who consented, as the audit of the grant's calls names them (with the client and grant). */
  principal?: KeyPrincipal | PersonPrincipal;
  /** Why the person who consented operated then: asked again at each use (approver.ts). */
  admission?: Admission;
  /** The OAuth client the grant was issued to. */
  client_id: string;
  /** The limits the person consented to: tighten-only against the tenant's. */
  limits: GrantLimits;
}

/** A grant's limits, the override every run of the grant is opened with. */
export interface GrantLimits {
  /** Tools the grant's calls may use, a subset of the tenant's. */
  allowed_tools: string[];
  /** Most mutations each run may apply. */
  max_mutations: number;
  /** Most paid calls each run may make. */
  max_paid_calls: number;
  /** How long each run admits calls after it is opened. */
  deadline_ms: number;
}

/** The fence's index record of one grant. */
export interface GrantRecord extends GrantProps {
  /** The library's user id the grant is filed under (for revocation). */
  user_id: string;
  /** The client's name as its metadata gave it, for the console. */
  client_name: string;
  /** When the person consented (ms since the epoch). */
  created_at: number;
  /** The number of the grant's current run: its id is {@link runIdOf}. */
  run: number;
  /** When the current run was opened (ms since the epoch). */
  run_opened_at: number;
}

/** The KV key of a grant's record. */
export function recordKey(tenant: string, grant: string): string {
  return `tf-grant:${tenant}:${grant}`;
}

/** The run id of a grant's `n`th run (RUN_ID's charset). */
export function runIdOf(grant: string, n: number): string {
  return `oauth.${grant}.${n}`;
}

/** A new grant id: 96 random bits as hex. */
export function newGrantId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * A new grant's user id for the library: opaque and random, because the library's tokens
 * begin with it (`userId:grantId:secret`) and a token should say nothing of who approved it
 * (no tenant, no key digest). Each grant has its own; the record keeps it for revocation.
 */
export function newUserId(): string {
  return `u${newGrantId()}`;
}

/** The run override a grant's limits open each run with. */
export function overrideOf(limits: GrantLimits): LimitOverride {
  return { ...limits };
}

/** A grant's record, or null when it is gone (revoked) or not valid JSON. */
export async function readRecord(
  env: Env,
  tenant: string,
  grant: string,
): Promise<GrantRecord | null> {
  const text = await env.OAUTH_KV.get(recordKey(tenant, grant), "text");
  if (text === null) return null;
  try {
    return JSON.parse(text) as GrantRecord;
  } catch {
    console.error("invalid grant record", recordKey(tenant, grant));
    return null;
  }
}

/** Store a grant's record. */
export async function writeRecord(env: Env, record: GrantRecord): Promise<void> {
  await env.OAUTH_KV.put(recordKey(record.tenant, record.grant), JSON.stringify(record));
}

/** Every grant record of a tenant, newest first (at most `limit`). */
export async function listRecords(env: Env, tenant: string, limit = 100): Promise<GrantRecord[]> {
  const listed = await env.OAUTH_KV.list({ prefix: `tf-grant:${tenant}:`, limit });
  const records = await Promise.all(
    listed.keys.map((k) => readRecord(env, tenant, k.name.slice(`tf-grant:${tenant}:`.length))),
  );
  return records
    .filter((r): r is GrantRecord => r !== null)
    .sort((a, b) => b.created_at - a.created_at);
}
