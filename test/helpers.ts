import {
  createExecutionContext,
  evictDurableObject,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import * as v from "valibot";
import type { ChainReport } from "../src/core/audit-chain.ts";
import { sha256Hex } from "../src/core/canonical.ts";
import { newApiKey, recordName } from "../src/core/keys.ts";
import { type AuditPage, AuditPageSchema } from "../src/core/shapes/audit.ts";
import { type LimitsView, type RunView, RunViewSchema } from "../src/core/shapes/run.ts";
import { ChainReportSchema } from "../src/http/wire-approvals.ts";
import type { ArchiveAlarm } from "../src/ledger/audit/archive-alarm.ts";
import type { ArchiveConfig } from "../src/ledger/audit/audit-archive.ts";
import type { RunLedger } from "../src/ledger/RunLedger.ts";

/** A fresh run id per test, so tests never share a ledger. */
export function newRun(prefix = "run"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** The development key, as `npm run dev` and vitest.config.ts set it. */
export const DEV_KEY = "tf_dev_local_key";

/** Options of one proposed call. */
export interface CallOptions {
  /** Extra request headers; an `Authorization` here replaces the caller's key. */
  headers?: Record<string, string>;
  /** Content type; JSON by default, none at all when null (the body is then sent as bytes). */
  contentType?: string | null;
}

/** A run's effective limits, as `GET /v1/runs/{id}` shows them. */
export type RunLimitsView = LimitsView;

/** Run status as the fence publishes it. */
export type RunStatusView = RunView;

/** Someone calling the fence with one key (or none). */
export interface Caller {
  /** The key sent as `Authorization: Bearer`, or null for none. */
  key: string | null;
  /** POST a call; an object body is sent as JSON, a string as is. */
  propose(runId: string, body: unknown, opts?: CallOptions): Promise<Response>;
  /** GET a fence route. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** POST to a fence route without a body. */
  post(path: string, headers?: Record<string, string>): Promise<Response>;
  /** PUT a JSON body (or a raw string) to a fence route. */
  put(path: string, body: unknown): Promise<Response>;
  /** The run's status, as this caller sees it, checked against the wire shape. */
  runStatus(runId: string): Promise<RunStatusView>;
}

/**
 * The client address the platform reports in `CF-Connecting-IP`: loopback for the development
 * key (honoured only from this machine), else a fresh documentation address (RFC 5737), so
 * each caller's failed authentications are counted apart.
 */
export function addressFor(key: string | null): string {
  return key === DEV_KEY ? "127.0.0.1" : `198.51.100.${1 + Math.floor(Math.random() * 254)}`;
}

/** A caller using `key`; loopback host, since the development key is honoured only there. */
export function caller(key: string | null): Caller {
  const address = addressFor(key);
  const send = (path: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    if (key !== null && !headers.has("Authorization"))
      headers.set("Authorization", `Bearer ${key}`);
    if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", address);
    return exports.default.fetch(`http://localhost${path}`, { ...init, headers });
  };
  const self: Caller = {
    key,
    propose: (runId, body, opts = {}) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      const type = opts.contentType === undefined ? "application/json" : opts.contentType;
      // fetch() labels a string body text/plain; bytes go out with no Content-Type at all.
      return send(`/v1/runs/${runId}/calls`, {
        method: "POST",
        headers: { ...(type === null ? {} : { "Content-Type": type }), ...opts.headers },
        body: type === null ? new TextEncoder().encode(text) : text,
      });
    },
    get: (path, headers = {}) => send(path, { headers }),
    post: (path, headers = {}) => send(path, { method: "POST", headers }),
    put: (path, body) =>
      send(path, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    runStatus: async (runId) => answerOf(RunViewSchema, await self.get(`/v1/runs/${runId}`)),
  };
  return self;
}

/**
 * A request to the fence as the development key, for tests that call an app directly
 * (`buildApp(fence).fetch`); loopback host, since the key is honoured only there.
 */
export function devRequest(path: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  if (!headers.has("Authorization")) headers.set("Authorization", `Bearer ${DEV_KEY}`);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", "127.0.0.1");
  return new Request(`http://localhost${path}`, { ...init, headers });
}

/** The local development operator of tenant `default`: every test's default caller. */
export const dev = caller(DEV_KEY);

/** No credentials at all. */
export const anonymous = caller(null);

/** What a test key is bound to. */
export interface TestKey {
  /** Tenant; a fresh one by default. */
  tenant?: string;
  /** Role; `agent` by default. */
  role?: "agent" | "operator";
  /** Tool subset, if any. */
  tools?: string[];
}

/** Store a new key the way `npm run keys -- issue` does, and call with it. */
export async function callerWith(opts: TestKey = {}): Promise<Caller & { tenant: string }> {
  const key = newApiKey();
  const tenant = opts.tenant ?? `t-${crypto.randomUUID()}`;
  const record = {
    tenant,
    role: opts.role ?? "agent",
    ...(opts.tools === undefined ? {} : { tools: opts.tools }),
    label: "test",
    created_at: new Date().toISOString(),
  };
  await env.API_KEYS.put(recordName(await sha256Hex(key)), JSON.stringify(record));
  return { ...caller(key), tenant };
}

/** POST a call to the fence as the development key. */
export const propose = dev.propose;

/** GET a fence route as the development key. */
export const get = dev.get;

/** POST to a fence route without a body, as the development key. */
export const post = dev.post;

/** PUT to a fence route, as the development key. */
export const put = dev.put;

/** The parsed JSON body of a response. */
export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * The JSON body of an answer, parsed with the wire schema the OpenAPI document publishes for
 * it: a test fails when an answer drifts from its shape.
 */
export async function answerOf<S extends v.GenericSchema>(
  schema: S,
  response: Response,
): Promise<v.InferOutput<S>> {
  return v.parse(schema, await response.json());
}

/** A ticket call with a key, in the canonical form. */
export function ticketCall(tool: string, args: Record<string, unknown>, key: string) {
  return { tool, args, idempotency_key: key };
}

/** The run's status, as the development key sees it. */
export const runStatus = dev.runStatus;

/** Read a ticket from the demo tickets service, bypassing the fence. */
export async function demoTicket(ticketId: string, tenant = "default"): Promise<Response> {
  return demoUpstreams().fetch(`https://demo.internal/tickets/${encodeURIComponent(ticketId)}`, {
    headers: { "X-Toolfence-Tenant": tenant },
  });
}

/** Create a ticket directly in the demo tickets service, outside any run's budget. */
export async function seedTicket(tenant = "default"): Promise<string> {
  const ticketId = `T-${crypto.randomUUID()}`;
  const res = await demoUpstreams().fetch("https://demo.internal/tickets", {
    method: "POST",
    headers: { "X-Toolfence-Tenant": tenant, "Content-Type": "application/json" },
    body: JSON.stringify({ ticket_id: ticketId, priority: "normal" }),
  });
  if (res.status !== 201) throw new Error(`seeding a ticket failed: ${res.status}`);
  return ticketId;
}

/** Anything that answers a request the way a worker's default export does. */
export interface FetchHandler {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

/**
 * POST `body` as the development key to `handler` (the worker, or an app built with other
 * contracts), with `bindings`, and wait for the work it deferred (the cache writes), so a
 * test sees storage as the next call will.
 */
export async function proposeThrough(
  handler: FetchHandler,
  bindings: Env,
  runId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const request = devRequest(`/v1/runs/${runId}/calls`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handler.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/**
 * An audit page folded to one entry per call, as each call ended: an outcome entry (`of` an
 * admitted call's entry) takes the place of the entry it settles.
 */
export function foldCalls<T extends { seq: number; of?: number | null }>(
  entries: readonly T[],
): T[] {
  const bySeq = new Map<number, T>();
  for (const e of entries) {
    if (e.of !== null && e.of !== undefined && bySeq.has(e.of)) bySeq.set(e.of, e);
    else bySeq.set(e.seq, e);
  }
  return [...bySeq.values()];
}

/** The RunLedger of `run` of the development key's tenant. */
export function runLedger(run: string) {
  return env.RUN_LEDGER.getByName(`default/${run}`);
}

/**
 * A test's shortcut through time or budget: `UPDATE run SET <set>` in the run's object's own
 * storage. The object keeps its row between its own writes, so it is then evicted and started
 * again, reading its storage as a restart would.
 */
export async function editRun(
  stub: DurableObjectStub<RunLedger>,
  set: string,
  ...values: SqlStorageValue[]
): Promise<void> {
  await runInDurableObject(stub, (_ledger, state) => {
    state.storage.sql.exec(`UPDATE run SET ${set}`, ...values);
  });
  await evictDurableObject(stub);
  await runInDurableObject(stub, () => undefined);
}

/** `GET /v1/runs/{run}/audit/verify` as the development key (an operator). */
export async function verifyAudit(run: string): Promise<ChainReport> {
  return answerOf(ChainReportSchema, await get(`/v1/runs/${run}/audit/verify`));
}

/** A page of the run's audit log as `who` (the development key by default) reads it. */
export async function auditPage(run: string, who: Caller = dev, query = ""): Promise<AuditPage> {
  return answerOf(AuditPageSchema, await who.get(`/v1/runs/${run}/audit${query}`));
}

/** The demo upstreams, as the demo fence's `DEMO` binding reaches them (test/worker.ts). */
export function demoUpstreams(): Fetcher {
  if (env.DEMO === undefined) throw new Error("the tests run the demo fence, which binds DEMO");
  return env.DEMO;
}

/**
 * The run's alarm step that archives, run inside its object with a test's small configuration
 * and time instead of the worker's variables and the clock.
 */
export function archiveNow(run: string, cfg: ArchiveConfig, now = Date.now()): Promise<number> {
  return runInDurableObject(runLedger(run), (ledger: RunLedger) => {
    const { alarms } = ledger as unknown as { alarms: ArchiveAlarm };
    return alarms.ring(cfg, now);
  });
}
