/**
 * The pipeline's answer to one proposal, as data: what the fence decided, before any edge
 * renders it. REST renders it here as JSON or problem+json with the fence's headers; the MCP
 * edge renders the same object as a tool result (src/mcp/results.ts).
 */
import type { UpstreamInput } from "../execute/mcp.ts";
import type { CacheStatus } from "../ledger/protocol.ts";
import { PROBLEM_TYPE } from "./problem.ts";

/**
 * Which admitted call a retry continues, as the fence's own request state held it (sealed by
 * the MCP edge, src/mcp/input-relay.ts): the call, the round answered, and the call's
 * fingerprint, which the retry's must equal.
 */
export interface Continuation {
  /** The admitted call. */
  callId: string;
  /** The round the client answers, counted from 1. */
  round: number;
  /** SHA-256 of the canonical call that was admitted. */
  fingerprint: string;
}

/** The fence's answer to one proposed call. */
export interface Decision {
  /** HTTP status from the decision table; 200 when the tool's result is returned. */
  status: number;
  /** `{ decision, result, call_id, budget }` for a result, else the problem details. */
  body: Record<string, unknown>;
  /** How the result cache answered, or null when the call did not go through it. */
  cache: CacheStatus | null;
  /** The cache key of a cacheable read, or null. */
  cacheKey: string | null;
  /** True when this is the stored answer of an earlier call with the same key. */
  replayed: boolean;
  /** Seconds after which the same call may be proposed again (`Retry-After`), or null. */
  retryAfterS: number | null;
  /**
   * Set when the call's MCP upstream asked the client for input: what it asked, and the call
   * and round the client's answers continue (the MCP edge seals these into its request state).
   */
  input?: { asked: UpstreamInput; continues: Continuation };
  /** Set when the call's MCP upstream refused it for client capabilities it names (`-32021`). */
  missingCapabilities?: Record<string, unknown>;
}

/** The REST form of a decision (`POST /v1/runs/{run_id}/calls`). */
export function restAnswer(d: Decision): Response {
  // A result, and a call accepted for a person's decision (202, RFC 9110 §15.3.3), are not
  // errors: plain JSON. Every refusal is problem+json.
  const headers = new Headers({
    "Content-Type": d.status < 400 ? "application/json" : PROBLEM_TYPE,
  });
  if (d.retryAfterS !== null) headers.set("Retry-After", String(d.retryAfterS));
  if (d.cache !== null) headers.set("X-Cache", d.cache);
  if (d.cacheKey !== null) headers.set("X-Cache-Key", d.cacheKey);
  if (d.replayed) headers.set("Idempotent-Replayed", "true");
  return new Response(JSON.stringify(d.body), { status: d.status, headers });
}
