import { exports } from "cloudflare:workers";

/** A fresh run id per test, so tests never share a ledger. */
export function newRun(prefix = "run"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** Options of one proposed call. */
export interface CallOptions {
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Content type; JSON by default. */
  contentType?: string;
}

/** POST a call to the fence; an object body is sent as JSON, a string as is. */
export function propose(runId: string, body: unknown, opts: CallOptions = {}): Promise<Response> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return exports.default.fetch(`http://fence.test/v1/runs/${runId}/calls`, {
    method: "POST",
    headers: { "Content-Type": opts.contentType ?? "application/json", ...opts.headers },
    body: text,
  });
}

/** GET a fence route. */
export function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(`http://fence.test${path}`, { headers });
}

/** POST to a fence route without a body. */
export function post(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(`http://fence.test${path}`, { method: "POST", headers });
}

/** PUT a JSON body (or a raw string) to a fence route. */
export function put(path: string, body: unknown): Promise<Response> {
  return exports.default.fetch(`http://fence.test${path}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The parsed JSON body of a response. */
export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** A ticket call with a key, in the canonical form. */
export function ticketCall(tool: string, args: Record<string, unknown>, key: string) {
  return { tool, args, idempotency_key: key };
}

/** A run's effective limits, as `GET /v1/runs/{id}` shows them. */
export interface RunLimitsView {
  /** Tools the run may call. */
  allowed_tools: string[];
  /** Most mutations. */
  max_mutations: number;
  /** Most paid calls. */
  max_paid_calls: number;
  /** Deadline after creation, in ms. */
  deadline_ms: number;
  /** Per-tool caps. */
  tools: Record<string, { max_calls_per_run: number }>;
}

/** The run's status. */
export async function runStatus(runId: string): Promise<{
  status: string;
  created_at: string;
  deadline_at: string;
  budget: {
    mutations: { used: number; limit: number };
    paid_calls: { used: number; limit: number };
  };
  limits: RunLimitsView;
  tool_calls: Record<string, number>;
  decisions: Record<string, number>;
}> {
  return json(await get(`/v1/runs/${runId}`));
}

/** Read a ticket from the demo tickets service, bypassing the fence. */
export async function demoTicket(ticketId: string, tenant = "default"): Promise<Response> {
  const { env } = await import("cloudflare:workers");
  return env.DEMO.fetch(`https://demo.internal/tickets/${encodeURIComponent(ticketId)}`, {
    headers: { "X-Toolfence-Tenant": tenant },
  });
}

/** Create a ticket directly in the demo tickets service, outside any run's budget. */
export async function seedTicket(tenant = "default"): Promise<string> {
  const { env } = await import("cloudflare:workers");
  const ticketId = `T-${crypto.randomUUID()}`;
  const res = await env.DEMO.fetch("https://demo.internal/tickets", {
    method: "POST",
    headers: { "X-Toolfence-Tenant": tenant, "Content-Type": "application/json" },
    body: JSON.stringify({ ticket_id: ticketId, priority: "normal" }),
  });
  if (res.status !== 201) throw new Error(`seeding a ticket failed: ${res.status}`);
  return ticketId;
}
