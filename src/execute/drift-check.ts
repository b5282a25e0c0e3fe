/**
 * The scheduled drift check of pinned MCP tools (the records it keeps and who reads them:
 * drift.ts).
 */
import type { McpUpstream, ToolContract } from "../core/contract.ts";
import { scanListedTool } from "../core/guardrails/listing-scan.ts";
import { callHeaders } from "./call-identity.ts";
import { DRIFT_PREFIX, type DriftRecord, driftOf, EPOCH_PREFIX, listedHash } from "./drift.ts";

type McpContract = ToolContract & { upstream: McpUpstream };

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
    const names = [...byName.keys(), ...tools.map((c) => c.name)];
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
      const findings = now_ === undefined ? [] : scanListedTool(now_, names);
      const record: DriftRecord = {
        status: seen === null ? "gone" : "changed",
        seen_sha256: seen,
        checked_at: now.toISOString(),
        ...(findings.length === 0 ? {} : { findings }),
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
