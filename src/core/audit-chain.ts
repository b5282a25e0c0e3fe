/**
 * The audit as evidence: each run's entries form one hash chain. An entry's `hash` is the
 * lowercase hex SHA-256 of the RFC 8785 form of the entry exactly as the API publishes it,
 * without its `hash` member (so `prev` is covered); the first entry's `prev` is the SHA-256 of
 * the RFC 8785 form of `{"run": <run id>, "tenant": <tenant>}`, every later `prev` the previous
 * entry's `hash`. SHA-256 is computed synchronously (`node:crypto`, native in the Workers runtime
 * with `nodejs_compat` and in Node) so the ledger extends the chain inside the decision's own
 * storage transaction. Pure: anyone can verify a log with this file and the two it imports.
 */
import { canonicalize } from "./canonical.ts";
import { nodeCrypto } from "./node-crypto.ts";

/** What a chained entry carries besides its own fields. */
export interface Chained {
  /** Position in the run's log: 1, 2, 3 … with no gaps. */
  seq: number;
  /** The previous entry's hash, or the run's genesis for the first. */
  prev: string;
  /** This entry's hash. */
  hash: string;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, synchronously. */
export function sha256HexSync(text: string): string {
  return nodeCrypto().createHash("sha256").update(text, "utf8").digest("hex");
}

/** The `prev` of a run's first entry. */
export function genesis(tenant: string, run: string): string {
  return sha256HexSync(canonicalize({ run, tenant }));
}

/** The hash of an entry: of its RFC 8785 form without `hash`. */
export function entryHash(entry: Readonly<Record<string, unknown>>): string {
  const { hash: _, ...rest } = entry;
  return sha256HexSync(canonicalize(rest));
}

/** What verifying a log found. */
export interface ChainReport {
  /** Whether every entry links and hashes as the rule says. */
  ok: boolean;
  /** How many entries were checked. */
  entries: number;
  /** The last entry's seq and hash, or null for an empty log. */
  head: { seq: number; hash: string } | null;
  /** The first entry that breaks the chain. */
  first_bad_seq?: number;
  /** What is wrong there. */
  problem?: string;
}

/**
 * Verify entries in order. `from` is where the log is expected to start (1 for a whole log);
 * `prevOfFirst` the `prev` the first entry must carry (the genesis for a whole log).
 */
export function verifyChain(
  entries: readonly Readonly<Record<string, unknown>>[],
  opts: { tenant: string; run: string; from?: number; prevOfFirst?: string },
): ChainReport {
  let expectSeq = opts.from ?? 1;
  let prev = opts.prevOfFirst ?? genesis(opts.tenant, opts.run);
  let head: ChainReport["head"] = null;
  for (const e of entries) {
    const seq = typeof e.seq === "number" ? e.seq : Number.NaN;
    const bad = (problem: string): ChainReport => ({
      ok: false,
      entries: entries.length,
      head,
      first_bad_seq: Number.isNaN(seq) ? expectSeq : seq,
      problem,
    });
    if (seq !== expectSeq) {
      return bad(
        seq > expectSeq
          ? `entry ${expectSeq} is missing (deleted), or entries were reordered: found seq ${seq}`
          : `seq ${seq} again or out of order (inserted or reordered): expected ${expectSeq}`,
      );
    }
    if (e.prev !== prev)
      return bad(`prev does not link to entry ${seq - 1}'s hash (inserted, deleted or reordered)`);
    if (e.hash !== entryHash(e)) return bad("hash does not match the entry (edited)");
    prev = e.hash as string;
    head = { seq, hash: prev };
    expectSeq++;
  }
  return { ok: true, entries: entries.length, head };
}
