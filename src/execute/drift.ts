/**
 * Drift of pinned MCP tools as the worker sees it: a scheduled check lists each server's tools
 * and records in KV (`DRIFT`, key `drift:<tool>`) every pinned tool whose schema hash changed or
 * that is gone; calls and the catalogue read those records. Whenever a tool's record appears,
 * changes or goes, its cache epoch (`epoch:<tool>`) changes too, and with it the key of every
 * cached result of the tool: the Cache API tier cannot be listed, so results are invalidated by
 * never being asked for again. The pin itself never changes here: only a reviewed re-import
 * does that.
 */

import { canonicalize, sha256Hex } from "../core/canonical.ts";
import type { McpUpstream, ToolContract } from "../core/contract.ts";
import { callHeaders } from "./pin-check.ts";

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
}

type McpContract = ToolContract & { upstream: McpUpstream };

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
 * Check every pinned MCP tool against its server and record the result in `DRIFT`. A server
 * that cannot be reached leaves its tools' records as they were: unknown is not drift.
 */
export async function checkDrift(
  env: Env,
  contracts: Iterable<ToolContract>,
  now = new Date(),
): Promise<void> {
  const byServer = new Map<string, McpContract[]>();
  for (const c of contracts) {
    if (c.upstream.kind !== "mcp") continue;
    const server = JSON.stringify([c.upstream.endpoint, c.upstream.auth ?? null]);
    byServer.set(server, [...(byServer.get(server) ?? []), c as McpContract]);
  }
  for (const tools of byServer.values()) {
    const first = tools[0];
    if (first === undefined) continue;
    // Loaded here, not at startup (see execute.ts).
    const { listMcpTools } = await import("./mcp.ts");
    // The check connects as a call does (src/execute/pin-check.ts): a server cannot tell it
    // apart by its headers and show it another listing.
    const who = { tenant: "default", runId: `run-${crypto.randomUUID()}` };
    const listed = await listMcpTools(first.upstream, env, callHeaders(who)).catch(() => null);
    if (listed === null) continue;
    const byName = new Map(listed.map((t) => [t.name, t]));
    for (const c of tools) {
      const now_ = byName.get(c.upstream.tool);
      const seen = now_ === undefined ? null : await listedHash(now_);
      const key = `${DRIFT_PREFIX}${c.name}`;
      const before = await driftOf(env, c.name);
      if (seen === c.upstream.pinned.sha256) {
        if (before === null) continue;
        await newEpoch(env, c.name, now);
        await env.DRIFT.delete(key);
        continue;
      }
      const record: DriftRecord = {
        status: seen === null ? "gone" : "changed",
        seen_sha256: seen,
        checked_at: now.toISOString(),
      };
      if (before?.status !== record.status || before.seen_sha256 !== seen) {
        await newEpoch(env, c.name, now);
      }
      await env.DRIFT.put(key, JSON.stringify(record));
    }
  }
}

/**
 * Start a new cache epoch for `tool`, before its drift record changes: no result cached while
 * the server listed something else is served once the check has seen the change.
 */
async function newEpoch(env: Env, tool: string, now: Date): Promise<void> {
  await env.DRIFT.put(`${EPOCH_PREFIX}${tool}`, `${now.toISOString()}/${crypto.randomUUID()}`);
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
