/**
 * The in-isolate tier: results this isolate has already seen, held in a byte-bounded map in
 * front of the Cache API, so a repeated read is answered without awaiting any other tier.
 *
 * It owns three rules the other tiers get from the platform: entries are filed per tenant
 * (even a result a contract shares across tenants is copied per tenant here, so one tenant's
 * traffic can never evict or read another's), an entry is never served past its `expires_at`,
 * and the total size stays under a byte budget (least recently used goes first). A Worker
 * isolate has 128 MB of memory ("Memory", Workers limits), so the budget is a small share.
 */
import type { GuardFinding } from "../core/guardrails/scan.ts";

/** One result held in memory. */
interface Held {
  /** The tool's result, as it passed the output contract when a tier first produced it. */
  result: unknown;
  /** Epoch ms after which it is never served. */
  expiresAt: number;
  /** What it costs against the budget: the UTF-16 length of its JSON, times two. */
  bytes: number;
  /** What the result rules did to it when it was stored, if anything. */
  findings?: readonly GuardFinding[];
}

/** A MemoryTier bound to one tenant. */
export interface TenantMemory {
  /** The result under `key`, or undefined when absent or expired at `now`. */
  get(key: string, now: number): Stored | undefined;
  /** Hold `result` until `expiresAt`; `json` sizes it. */
  put(key: string, result: unknown, expiresAt: number, json: string, findings?: Findings): void;
}

type Findings = readonly GuardFinding[];

/** A held result, with what the result rules did to it when it was stored. */
export interface Stored {
  /** The tool's result. */
  result: unknown;
  /** The result rules' findings, absent when none acted. */
  findings?: Findings;
}

/** A byte-bounded, TTL-honouring, tenant-scoped map of results. */
export class MemoryTier {
  private readonly held = new Map<string, Held>();
  private used = 0;

  /** @param budget most bytes held at once; a single larger entry is never held. */
  private readonly budget: number;

  // No parameter properties: Node's type stripping cannot run them.
  constructor(budget: number) {
    this.budget = budget;
  }

  /** The result under `key` for `tenant`, or undefined when absent or expired. */
  get(tenant: string, key: string, now: number): Stored | undefined {
    const slot = slotOf(tenant, key);
    const entry = this.held.get(slot);
    if (entry === undefined) return undefined;
    this.held.delete(slot);
    if (entry.expiresAt <= now) {
      this.used -= entry.bytes;
      return undefined;
    }
    // Re-inserting moves it to the end of the map's order: the most recently used.
    this.held.set(slot, entry);
    return entry.findings === undefined
      ? { result: entry.result }
      : { result: entry.result, findings: entry.findings };
  }

  /** Hold `result` until `expiresAt`; `json` is its serialised form, used only to size it. */
  put(
    tenant: string,
    key: string,
    result: unknown,
    expiresAt: number,
    json: string,
    findings?: Findings,
  ): void {
    const slot = slotOf(tenant, key);
    const bytes = json.length * 2 + slot.length * 2;
    this.drop(slot);
    if (bytes > this.budget) return;
    for (const [oldest, entry] of this.held) {
      if (this.used + bytes <= this.budget) break;
      this.held.delete(oldest);
      this.used -= entry.bytes;
    }
    this.held.set(
      slot,
      findings === undefined
        ? { result, expiresAt, bytes }
        : { result, expiresAt, bytes, findings },
    );
    this.used += bytes;
  }

  /** Bytes held now. */
  size(): number {
    return this.used;
  }

  /** This tier as one tenant sees it: the only view the call path gets. */
  scope(tenant: string): TenantMemory {
    return {
      get: (key, now) => this.get(tenant, key, now),
      put: (key, result, expiresAt, json, findings) =>
        this.put(tenant, key, result, expiresAt, json, findings),
    };
  }

  private drop(slot: string): void {
    const entry = this.held.get(slot);
    if (entry === undefined) return;
    this.held.delete(slot);
    this.used -= entry.bytes;
  }
}

/** A tenant id cannot hold a newline (TENANT_PATTERN), so the slot is unambiguous. */
function slotOf(tenant: string, key: string): string {
  return `${tenant}\n${key}`;
}
