/**
 * The demo's upstream tools behind the DEMO service binding: tickets, logs and a small MCP
 * server, each as untrusting as a real upstream.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { type Context, Hono } from "hono";
import { inboxOf, receive } from "./inbox.ts";
import { latencyRange, syntheticLogs } from "./logs.ts";
import { answerMcp } from "./ops-mcp.ts";
import type { DeskAnswer, NewTicket, TicketDesk } from "./TicketDesk.ts";

/** The bindings of the demo upstreams worker (demo/wrangler.toml). */
export interface DemoEnv {
  /** The tickets service's storage, one object per tenant. */
  TICKET_DESK: DurableObjectNamespace<TicketDesk>;
  /** Latency of the log backend, "min-max" in ms. */
  DEMO_LOG_LATENCY_MS?: string;
}

/**
 * The demo's upstream tools, reached through the `DEMO` service binding: a tickets
 * service with durable state that honours `Idempotency-Key`, and a log backend with
 * deterministic logs and a real backend's latency. They trust their input no more than
 * any upstream would: each checks what arrived against its tool's contract, counts it
 * per run (`GET /inbox/{tenant}/{run}`), and refuses it with 400 when it breaks it.
 */
type DemoContext = Context<{ Bindings: DemoEnv }>;
const demo = new Hono<{ Bindings: DemoEnv }>();

function desk(env: DemoEnv, tenant: string | undefined) {
  return env.TICKET_DESK.getByName(tenant ?? "default");
}

function answer(a: DeskAnswer): Response {
  return Response.json(a.body, { status: a.status });
}

/** The request's JSON arguments if they keep `tool`'s contract, else null (and counted). */
async function received<T>(c: DemoContext, tool: string): Promise<T | null> {
  const tenant = c.req.header("X-Toolfence-Tenant") ?? "default";
  const run = `${tenant}/${c.req.header("X-Toolfence-Run") ?? ""}`;
  const args: unknown = await c.req.json().catch(() => undefined);
  const key = c.req.header("Idempotency-Key") ?? null;
  return receive(run, tool, args, key) ? (args as T) : null;
}

const OUTSIDE = { error: "the call breaks the tool's contract" };

demo.post("/tickets", async (c) => {
  const t = await received<NewTicket>(c, "create_ticket");
  if (t === null) return c.json(OUTSIDE, 400);
  const key = c.req.header("Idempotency-Key") ?? null;
  return answer(await desk(c.env, c.req.header("X-Toolfence-Tenant")).create(t, key));
});

demo.get("/tickets/:id", async (c) => {
  return answer(await desk(c.env, c.req.header("X-Toolfence-Tenant")).get(c.req.param("id")));
});

demo.post("/tickets/:id/comments", async (c) => {
  const args = await received<{ body: string }>(c, "add_comment");
  if (args === null) return c.json(OUTSIDE, 400);
  const key = c.req.header("Idempotency-Key") ?? null;
  const d = desk(c.env, c.req.header("X-Toolfence-Tenant"));
  return answer(await d.comment(c.req.param("id"), args.body, key));
});

/**
 * Queries the log backend has answered in this isolate, per service: what the fence's
 * result cache is meant to save, so the demo counts it.
 */
const logQueries = new Map<string, number>();

demo.post("/logs/query", async (c) => {
  const args = await received<{ service: string; window: string }>(c, "fetch_service_logs");
  if (args === null) return c.json(OUTSIDE, 400);
  logQueries.set(args.service, (logQueries.get(args.service) ?? 0) + 1);
  const [lo, hi] = latencyRange(c.env.DEMO_LOG_LATENCY_MS);
  if (hi > 0) await scheduler.wait(lo + Math.random() * (hi - lo));
  return c.json({ logs: syntheticLogs(args.service, args.window) });
});

demo.get("/logs/queries/:service", (c) => {
  const service = c.req.param("service");
  return c.json({ service, queries: logQueries.get(service) ?? 0 });
});

demo.all("/mcp", (c) => answerMcp(c.req.raw));

demo.get("/inbox/:tenant/:run", (c) =>
  c.json(inboxOf(`${c.req.param("tenant")}/${c.req.param("run")}`)),
);

/** The demo upstreams, bound to the demo fence as `DEMO`. */
export class DemoUpstreams extends WorkerEntrypoint<DemoEnv> {
  override fetch(request: Request): Response | Promise<Response> {
    return demo.fetch(request, this.env, this.ctx);
  }
}
