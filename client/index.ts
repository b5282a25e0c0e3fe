/**
 * `toolfence/client`: a typed client of the fence's REST API. No runtime dependency but
 * `fetch` (and Web Crypto for intent keys): it runs in Node, browsers, Workers and Deno.
 */
import type { LimitOverride } from "../src/core/limits.ts";
import type { AuditPage } from "../src/core/shapes/audit.ts";
import type { CallOutcome, HaltView, Problem, RunView, ToolArgs, ToolName } from "./types.ts";

export type * from "./types.ts";

/** How a client reaches the fence. */
export interface ClientOptions {
  /** The fence's base URL, e.g. `https://fence.example.com`. */
  url: string;
  /** The API key, sent as `Authorization: Bearer`. */
  key: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /** The idempotency key of a mutation: one per intent (see `intentKey`). */
  key?: string;
  /** Attempts in all for `retry` answers (1 = never retry); 3 by default. */
  attempts?: number;
  /** First backoff in ms, doubled each attempt, with full jitter; 250 by default. */
  backoffMs?: number;
  /** Longest single wait in ms, whatever `Retry-After` says; 10 s by default. */
  maxWaitMs?: number;
}

/**
 * A stable idempotency key for an intent, e.g. `await intentKey("create", ticketId)`: the same
 * parts give the same key, so every retry of the intent carries it.
 */
export async function intentKey(...parts: (string | number)[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `intent:${hex}`;
}

/** RFC 9110 §10.2.3: `Retry-After` is delay-seconds or an HTTP-date; null when neither. */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  if (/^\d{1,9}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** Wait before attempt `n + 1`: `Retry-After` if the fence sent one, else jittered backoff. */
function waitMs(n: number, retryAfter: string | null, opts: CallOptions): number {
  const cap = opts.maxWaitMs ?? 10_000;
  const after = retryAfterMs(retryAfter);
  if (after !== null) return Math.min(after, cap);
  const base = (opts.backoffMs ?? 250) * 2 ** n;
  return Math.min(Math.random() * base, cap);
}

/** The fence, as one API key sees it. */
export function createClient(opts: ClientOptions) {
  const base = opts.url.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? fetch;
  const auth = { Authorization: `Bearer ${opts.key}` };
  const send = (path: string, init: RequestInit = {}) =>
    doFetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
  return {
    /** The catalogue: every tool this key may use, with its JSON Schema. */
    tools: async () => json<{ tools: CatalogueTool[] }>(await send("/v1/tools")),
    /** One agent run. */
    run: (runId: string) => runClient(runId, send, json),
  };
}

/** One tool in the catalogue (`GET /v1/tools`). */
export interface CatalogueTool {
  /** Exact name. */
  name: string;
  /** What it does. */
  description: string;
  /** `read` or `mutate`. */
  effect: "read" | "mutate";
  /** JSON Schema of the arguments. */
  input_schema: Record<string, unknown>;
  /** JSON Schema of the result. */
  output_schema: Record<string, unknown>;
}

type Send = (path: string, init?: RequestInit) => Promise<Response>;
type Json = <T>(res: Response) => Promise<T>;

function runClient(runId: string, send: Send, json: Json) {
  const path = `/v1/runs/${encodeURIComponent(runId)}`;
  return {
    /** The run's id. */
    id: runId,
    /** The catalogue this key sees (the same for every run). */
    tools: async () => json<{ tools: CatalogueTool[] }>(await send("/v1/tools")),
    /**
     * Propose one call. `retry` answers are retried with the same key (bounded, with backoff
     * honouring `Retry-After`); `block`, `escalate` and `needs_approval` never are.
     */
    async call<N extends ToolName>(
      tool: N,
      args: ToolArgs<N>,
      opts: CallOptions = {},
    ): Promise<CallOutcome<N>> {
      const body = JSON.stringify({
        tool,
        args,
        ...(opts.key ? { idempotency_key: opts.key } : {}),
      });
      const attempts = Math.max(1, opts.attempts ?? 3);
      for (let n = 0; ; n++) {
        const res = await send(`${path}/calls`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body,
        });
        const outcome = { ...(await json<object>(res)), status: res.status } as CallOutcome<N>;
        if (outcome.decision !== "retry" || n + 1 >= attempts) return outcome;
        await new Promise((r) => setTimeout(r, waitMs(n, res.headers.get("Retry-After"), opts)));
      }
    },
    /** The run's status: budget, deadline, limits, counts per decision. */
    status: async () => json<RunView | Problem>(await send(path)),
    /** One page of the audit log (operator keys). */
    audit: async (page: { after?: number; limit?: number } = {}) =>
      json<AuditPage | Problem>(
        await send(`${path}/audit?after=${page.after ?? 0}&limit=${page.limit ?? 100}`),
      ),
    /** One page of the audit log as NDJSON text (operator keys). */
    auditNdjson: async (page: { after?: number; limit?: number } = {}) =>
      (
        await send(`${path}/audit?after=${page.after ?? 0}&limit=${page.limit ?? 1000}`, {
          headers: { Accept: "application/x-ndjson" },
        })
      ).text(),
    /** The kill switch (operator keys): every later call of the run is refused. */
    halt: async (reason: string) =>
      json<HaltView | Problem>(
        await send(`${path}/halt?reason=${encodeURIComponent(reason)}`, { method: "POST" }),
      ),
    /** Open the run with tighter limits, or tighten them (the opener or an operator). */
    limits: async (limits: LimitOverride) =>
      json<RunView | Problem>(
        await send(path, {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(limits),
        }),
      ),
  };
}

/** A run as the client drives it. */
export type RunClient = ReturnType<typeof runClient>;

/** A client as `createClient` returns it. */
export type FenceClient = ReturnType<typeof createClient>;
