/**
 * Drift of pinned MCP tools as the worker sees it: a scheduled check (drift-check.ts) lists
 * each server's tools and records in KV (`DRIFT`, key `drift:<tool>`) every pinned tool whose schema hash changed or
 * that is gone; calls and the catalogue read those records. Whenever a tool's record appears,
 * changes or goes, its cache epoch (`epoch:<tool>`) changes too, and with it the key of every
 * cached result of the tool: the Cache API tier cannot be listed, so results are invalidated by
 * never being asked for again. The pin itself never changes here: only a reviewed re-import
 * does that.
 */

import { canonicalize, sha256Hex } from "../core/canonical.ts";
import type { ToolContract } from "../core/contract.ts";
import type { ListingFinding } from "../core/guardrails/listing-scan.ts";

/** KV key prefix of drift records. */
export const DRIFT_PREFIX = "drift:";

/** KV key prefix of cache epochs. */
export const EPOCH_PREFIX = "epoch:";

/** What the last check saw of a drifted tool. */
export interface DriftRecord {
  /** `changed`: listed with another schema; `gone`: not listed. */
  status: "changed" | "gone";
  /** SHA-256 of what the server listed, or null when gone. */
  seen_sha256: string | null;
  /** When the check ran (ISO 8601). */
  checked_at: string;
  /** What the listing scan found in the tool as listed now; absent when gone or nothing. */
  findings?: ListingFinding[];
}

/** The hash the import pins, computed the same way: RFC 8785, then SHA-256. */
export async function listedHash(tool: {
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}) {
  const schema: Record<string, unknown> = {
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) schema.outputSchema = tool.outputSchema;
  return sha256Hex(canonicalize(schema));
}

/**
 * The cache epoch of a cacheable MCP read, or null for any other tool (no KV read) and for a
 * tool whose drift has never changed. KV is eventually consistent: another location may go
 * on reading the old epoch for up to a minute after the check.
 */
export async function cacheEpochOf(env: Env, contract: ToolContract): Promise<string | null> {
  if (contract.upstream.kind !== "mcp") return null;
  if (contract.effect !== "read" || contract.cacheTtlSeconds <= 0) return null;
  return env.DRIFT.get(`${EPOCH_PREFIX}${contract.name}`);
}

/** The drift record of `tool`, or null when the last check found none. */
export async function driftOf(env: Env, tool: string): Promise<DriftRecord | null> {
  return env.DRIFT.get<DriftRecord>(`${DRIFT_PREFIX}${tool}`, "json");
}

/** Names of every tool with a drift record. */
export async function driftedTools(env: Env): Promise<Set<string>> {
  const names = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await env.DRIFT.list({
      prefix: DRIFT_PREFIX,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const k of page.keys) names.add(k.name.slice(DRIFT_PREFIX.length));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return names;
}
