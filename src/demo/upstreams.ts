import { WorkerEntrypoint } from "cloudflare:workers";
import { Hono } from "hono";
import { latencyRange, syntheticLogs } from "./logs.ts";
import type { DeskAnswer, NewTicket } from "./TicketDesk.ts";

/**
 * The demo's upstream tools, reached through the `DEMO` service binding: a tickets
 * service with durable state that honours `Idempotency-Key`, and a log backend with
 * deterministic logs and a real backend's latency. They trust their input no more than
 * any upstream would; the fence is what keeps bad calls away from them.
 */
const demo = new Hono<{ Bindings: Env }>();

function desk(env: Env, tenant: string | undefined) {
  return env.TICKET_DESK.getByName(tenant ?? "default");
}

function answer(a: DeskAnswer): Response {
  return Response.json(a.body, { status: a.status });
}

demo.post("/tickets", async (c) => {
  const t = await c.req.json<NewTicket>();
  const key = c.req.header("Idempotency-Key") ?? null;
  return answer(await desk(c.env, c.req.header("X-Toolfence-Tenant")).create(t, key));
});

demo.get("/tickets/:id", async (c) => {
  return answer(await desk(c.env, c.req.header("X-Toolfence-Tenant")).get(c.req.param("id")));
});

demo.post("/tickets/:id/comments", async (c) => {
  const { body } = await c.req.json<{ body: string }>();
  const key = c.req.header("Idempotency-Key") ?? null;
  const d = desk(c.env, c.req.header("X-Toolfence-Tenant"));
  return answer(await d.comment(c.req.param("id"), body, key));
});

/**
 * Queries the log backend has answered in this isolate, per service: what the fence's
 * result cache is meant to save, so the demo counts it.
 */
const logQueries = new Map<string, number>();

demo.post("/logs/query", async (c) => {
  const { service, window } = await c.req.json<{ service: string; window: string }>();
  logQueries.set(service, (logQueries.get(service) ?? 0) + 1);
  const [lo, hi] = latencyRange(c.env.DEMO_LOG_LATENCY_MS);
  if (hi > 0) await scheduler.wait(lo + Math.random() * (hi - lo));
  return c.json({ logs: syntheticLogs(service, window) });
});

demo.get("/logs/queries/:service", (c) => {
  const service = c.req.param("service");
  return c.json({ service, queries: logQueries.get(service) ?? 0 });
});

/** The demo upstreams as a named entrypoint, bound to the fence as `DEMO`. */
export class DemoUpstreams extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Response | Promise<Response> {
    return demo.fetch(request, this.env, this.ctx);
  }
}
