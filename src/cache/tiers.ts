/**
 * Where cached results live: the isolate's memory, this data centre's Cache API, and KV; the
 * lookup order, what may be stored, and the key each tier files an entry under.
 */
import type { ToolContract } from "../core/contract.ts";
import type { GuardFinding } from "../core/guardrails/scan.ts";
import { validateOutput } from "../core/validate.ts";
import { MemoryTier, type TenantMemory } from "./memory.ts";

/** Which tier answered a lookup. */
export type HitTier = "hit-memory" | "hit-edge" | "hit-kv";

/** A result found in one of the tiers. */
export interface Hit {
  /** The tier that had it. */
  tier: HitTier;
  /** The tool's result, as it passed the output contract. */
  result: unknown;
  /** What the result rules did to it when it was stored; absent when none acted. */
  findings?: readonly GuardFinding[];
}

/** Where cached results live. */
export interface ResultTiers {
  /** This isolate's memory, scoped to the caller's tenant; null to go to the Cache API. */
  memory: TenantMemory | null;
  /** This data centre's cache (`caches.default` on the call path). */
  edge: Cache;
  /** Origin of the edge tier's synthetic URLs (EDGE_ORIGIN on the call path). */
  origin: string;
  /** The global tier. */
  kv: KVNamespace;
}

/** What is stored under a key in both tiers. */
interface Entry {
  /** The tool's result. */
  result: unknown;
  /** Epoch ms after which the entry is never served, whatever a tier still holds. */
  expires_at: number;
  /**
   * What the result rules did to the result (rule, action, path; never a value), so a hit
   * carries the same `guard` as the answer that stored it. Absent when none acted.
   */
  findings?: readonly GuardFinding[];
}

/** Cloudflare KV refuses expirations less than 60 s ahead ("Expiring keys", KV docs). */
const KV_MIN_TTL_SECONDS = 60;

/**
 * The one origin every edge entry is filed under. The Cache API keys by request URL, so an
 * origin taken from the request would split one result across every Host a client sends
 * (and let a client pick where entries land). The URL is never fetched.
 */
export const EDGE_ORIGIN = "https://results.toolfence.internal";

/** The synthetic GET URL a key is filed under in the Cache API; no route answers it. */
export function edgeUrl(origin: string, key: string): string {
  return `${origin}/_toolfence/results/v1/${key}`;
}

/** The KV key of a cache key. */
export function kvKey(key: string): string {
  return `result/v1/${key}`;
}

/**
 * The isolate's one memory tier: module state lives as long as the isolate does. Its budget is
 * the first RESULT_MEMORY_BYTES it is made with; a deployment's vars do not change under a
 * running isolate.
 */
let isolateMemory: MemoryTier | null = null;

function memoryOf(env: Env, tenant: string): TenantMemory | null {
  const budget = Number(env.RESULT_MEMORY_BYTES);
  if (!(budget > 0)) return null;
  isolateMemory ??= new MemoryTier(budget);
  return isolateMemory.scope(tenant);
}

/**
 * The tiers of the call path: this isolate's memory (the tenant's share), this data centre's
 * default cache and the `RESULTS` namespace.
 */
export function tiersOf(env: Env, tenant: string): ResultTiers {
  return {
    memory: memoryOf(env, tenant),
    edge: caches.default,
    origin: EDGE_ORIGIN,
    kv: env.RESULTS,
  };
}

/**
 * Look a key up in memory, then the edge tier, then KV. A memory hit awaits nothing. An edge
 * or KV hit is copied into memory at once, and a KV hit back to the edge through `defer`, so
 * the answer does not wait for it. An entry past its `expires_at`, unreadable,
 * or no longer passing the tool's output contract is a miss; so is a tier that fails,
 * since the cache only ever saves work and must never fail a call.
 */
export async function lookup(
  tiers: ResultTiers,
  contract: ToolContract,
  key: string,
  defer: (write: Promise<unknown>) => void,
): Promise<Hit | null> {
  // Only results that passed the output contract are held, under a key naming the contract's
  // version, and an isolate runs one build: a memory hit needs no second validation.
  const memory = tiers.memory?.get(key, Date.now());
  if (memory !== undefined) return { tier: "hit-memory", ...memory };
  const edge = usable(contract, await guarded(readEdge(tiers, key)));
  if (edge !== null) {
    remember(tiers, key, edge);
    return hitOf("hit-edge", edge.entry);
  }
  const kv = usable(contract, await guarded(readKv(tiers.kv, key)));
  if (kv === null) return null;
  remember(tiers, key, kv);
  defer(guarded(writeEdge(tiers, key, kv)));
  return hitOf("hit-kv", kv.entry);
}

/** An entry with its JSON text, serialised once (or as a tier held it) for every tier. */
interface Stored {
  entry: Entry;
  text: string;
}

function hitOf(tier: HitTier, entry: Entry): Hit {
  const { result, findings } = entry;
  return findings === undefined ? { tier, result } : { tier, result, findings };
}

function remember(tiers: ResultTiers, key: string, { entry, text }: Stored): void {
  const { result, expires_at, findings } = entry;
  tiers.memory?.put(key, result, expires_at, text, findings);
}

/**
 * Store a result, with what the result rules did to it, in every tier for the tool's TTL. Only a read with a TTL, and only a
 * result that passes the output contract, is ever stored: false when it was refused. A
 * tier that fails to write is logged, not reported: the next lookup simply misses there.
 */
export async function store(
  tiers: ResultTiers,
  contract: ToolContract,
  key: string,
  result: unknown,
  findings: readonly GuardFinding[] = [],
): Promise<boolean> {
  if (contract.effect !== "read" || contract.cacheTtlSeconds <= 0) return false;
  if (!validateOutput(contract, result).ok) return false;
  const expires_at = Date.now() + contract.cacheTtlSeconds * 1000;
  const entry: Entry =
    findings.length === 0 ? { result, expires_at } : { result, expires_at, findings };
  const stored = { entry, text: JSON.stringify(entry) };
  remember(tiers, key, stored);
  await Promise.all([
    guarded(writeEdge(tiers, key, stored)),
    guarded(
      tiers.kv.put(kvKey(key), stored.text, {
        expirationTtl: Math.max(KV_MIN_TTL_SECONDS, contract.cacheTtlSeconds),
      }),
    ),
  ]);
  return true;
}

async function readEdge(tiers: ResultTiers, key: string): Promise<Stored | null> {
  const response = await tiers.edge.match(edgeUrl(tiers.origin, key));
  return response === undefined ? null : storedOf(await response.text());
}

async function readKv(kv: KVNamespace, key: string): Promise<Stored | null> {
  const text = await kv.get(kvKey(key));
  return text === null ? null : storedOf(text);
}

/** Write an entry to the edge for what is left of its life (RFC 9111 §5.2.2.1 max-age). */
async function writeEdge(tiers: ResultTiers, key: string, { entry, text }: Stored): Promise<void> {
  const seconds = Math.floor((entry.expires_at - Date.now()) / 1000);
  if (seconds <= 0) return;
  const response = new Response(text, {
    headers: { "Content-Type": "application/json", "Cache-Control": `max-age=${seconds}` },
  });
  await tiers.edge.put(edgeUrl(tiers.origin, key), response);
}

/** A tier's text as an entry, kept beside it: the text is what the next tier is given. */
function storedOf(text: string): Stored | null {
  try {
    const value = JSON.parse(text) as Partial<Entry> | null;
    if (typeof value?.expires_at !== "number" || !("result" in value)) return null;
    const { result, expires_at, findings } = value;
    const entry = Array.isArray(findings)
      ? { result, expires_at, findings }
      : { result, expires_at };
    return { entry, text };
  } catch {
    return null;
  }
}

function usable(contract: ToolContract, stored: Stored | null): Stored | null {
  if (stored === null || stored.entry.expires_at <= Date.now()) return null;
  return validateOutput(contract, stored.entry.result).ok ? stored : null;
}

/** A tier's failure is logged and read as a miss (or a skipped write). */
async function guarded<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (e) {
    console.error("result cache tier failed", e);
    return null;
  }
}
