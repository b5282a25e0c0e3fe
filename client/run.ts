/**
 * One agent run as the client sees it: typed tool calls, the run's status, its audit log,
 * the kill switch and its limits. Every method maps to one route of the fence's REST API.
 */
import { type Answer, sendOrThrow, sendWithRetry, type Transport } from "./http.ts";
import type { ArgsOf, MutationName, ResultOf, ToolName } from "./tools.ts";
import type { AuditEntry, AuditPage, Decision, RunLimits, RunStatus } from "./wire.ts";

/** Options of one call. */
export interface CallOptions {
  /** The idempotency key; required for mutations (see `intentKey`). */
  key?: string;
  /** Skip the result cache for this read (`Cache-Control: no-cache`). */
  noCache?: boolean;
  /** Abort the call (and its retries). */
  signal?: AbortSignal;
}

/** Options of a mutation's call: the key is required. */
export type MutationCallOptions = CallOptions & { key: string };

/** The options a call of `Name` takes: a mutation must name its key. */
export type CallOptionsOf<Name extends ToolName> = Name extends MutationName
  ? [options: MutationCallOptions]
  : [options?: CallOptions];

/** A page of the audit log to read. */
export interface AuditQuery {
  /** Entries after this sequence number. Default 0. */
  after?: number;
  /** At most this many entries (the fence caps it at 1000). */
  limit?: number;
}

/** One run of an agent, addressed by its id. */
export interface FenceRun {
  /** The run id. */
  readonly id: string;
  /** Propose one call of a tool in the contracts; the answer is discriminated on `decision`. */
  call<Name extends ToolName>(
    tool: Name,
    args: ArgsOf<Name>,
    ...options: CallOptionsOf<Name>
  ): Promise<Decision<ResultOf<Name>>>;
  /** Propose a call whose tool and arguments come from a model, unchecked until the fence. */
  propose(tool: string, args: unknown, options?: CallOptions): Promise<Decision>;
  /** The catalogue: every tool this key may call, with its JSON Schema. */
  tools(format?: "json" | "openai" | "anthropic"): Promise<unknown>;
  /** The run's status, budget and limits. */
  status(): Promise<RunStatus>;
  /** One page of the audit log (an operator key). */
  audit(query?: AuditQuery): Promise<AuditPage>;
  /** Every audit entry after `after`, read page by page as NDJSON (an operator key). */
  auditEntries(query?: AuditQuery): AsyncGenerator<AuditEntry>;
  /** The kill switch (an operator key): every later call of the run is blocked. */
  halt(reason?: string): Promise<RunStatus>;
  /** Open the run with limits tighter than the policy's, or tighten an open run's. */
  limits(limits: Partial<RunLimits>): Promise<RunStatus>;
}

function decisionOf(answer: Answer): Decision {
  return { ...answer.body, status: answer.status } as unknown as Decision;
}

function pageQuery(query: AuditQuery): string {
  const params = new URLSearchParams({ after: String(query.after ?? 0) });
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  return `?${params}`;
}

/** The run `id` over `transport`. */
export function runOf(transport: Transport, id: string): FenceRun {
  const base = `/v1/runs/${encodeURIComponent(id)}`;
  async function propose(tool: string, args: unknown, options: CallOptions = {}) {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (options.noCache === true) headers["Cache-Control"] = "no-cache";
    const body = JSON.stringify({ tool, args, idempotency_key: options.key });
    const init = { method: "POST", headers, body, signal: options.signal };
    return decisionOf(await sendWithRetry(transport, `${base}/calls`, init));
  }
  return {
    id,
    call: (tool, args, ...options) => propose(tool, args, options[0]) as never,
    propose,
    tools: (format = "json") => sendOrThrow(transport, `/v1/tools?format=${format}`),
    status: () => sendOrThrow(transport, base),
    audit: (query = {}) => sendOrThrow(transport, `${base}/audit${pageQuery(query)}`),
    auditEntries: (query = {}) => auditEntries(transport, `${base}/audit`, query),
    halt: (reason) =>
      sendOrThrow(
        transport,
        `${base}/halt${reason === undefined ? "" : `?reason=${encodeURIComponent(reason)}`}`,
        {
          method: "POST",
        },
      ),
    limits: (limits) =>
      sendOrThrow(transport, base, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(limits),
      }),
  };
}

/** RFC 8288: the next page of an NDJSON audit is the `rel="next"` link. */
function nextLink(link: string | null): string | null {
  const match = link?.match(/<([^>]*)>\s*;\s*rel="next"/);
  return match?.[1] ?? null;
}

async function* auditEntries(
  t: Transport,
  path: string,
  query: AuditQuery,
): AsyncGenerator<AuditEntry> {
  let next: string | null = pageQuery(query);
  while (next !== null) {
    const res = await t.fetch(`${t.url}${path}${next}`, {
      headers: { Authorization: `Bearer ${t.key}`, Accept: "application/x-ndjson" },
    });
    if (!res.ok) throw new Error(`toolfence audit answered ${res.status}: ${await res.text()}`);
    for (const line of (await res.text()).split("\n")) {
      if (line !== "") yield JSON.parse(line) as AuditEntry;
    }
    next = nextLink(res.headers.get("Link"));
  }
}
