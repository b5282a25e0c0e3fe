import { Hono } from "hono";
import { type CatalogueFormat, catalogue } from "../catalogue.ts";
import type { Fence } from "../core/policy.ts";
import { refuse } from "../core/reasons.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { authenticate, requireRole } from "./auth.ts";
import { proposeCall } from "./calls.ts";
import type { AppContext, AppEnv } from "./context.ts";
import { headerLimit, rateLimit } from "./guards.ts";
import { openApiDocument } from "./openapi/document.ts";
import { problem } from "./problem.ts";
import { haltRun, openRun, runAudit, runEscalations, runRef, runStatus } from "./runs.ts";

const FORMATS: readonly CatalogueFormat[] = ["json", "openai", "anthropic"];

function withRun(handler: (c: AppContext, ref: RunRef) => Promise<Response>) {
  return async function routeWithRun(c: AppContext): Promise<Response> {
    const ref = runRef(c);
    return ref instanceof Response ? ref : handler(c, ref);
  };
}

/** The fence's routes, deciding with `fence` (the worker passes the one it loaded). */
export function buildApp(fence: Fence): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/healthz", (c) => c.json({ ok: true }));
  // Public, like the health check: it describes the API, it grants nothing.
  app.get("/openapi.json", (c) => c.json(openApiDocument(fence)));

  app.use("/v1/*", async function withFence(c, next) {
    c.set("fence", fence);
    await next();
  });
  // Cheapest refusals first: oversized headers, then credentials, then the key's rate.
  app.use("/v1/*", headerLimit(), authenticate(), rateLimit());

  app.get("/v1/tools", (c) => {
    const format = (c.req.query("format") ?? "json") as CatalogueFormat;
    if (!FORMATS.includes(format)) {
      return problem(
        refuse("not_found", `Unknown catalogue format; use one of ${FORMATS.join(", ")}.`),
      );
    }
    const names = c.get("principal").tools;
    const tools = [...fence.tools.values()].filter(
      (t) => fence.policy.allowed_tools.includes(t.name) && (names?.includes(t.name) ?? true),
    );
    return c.json(catalogue(tools, format));
  });

  app.post("/v1/runs/:run_id/calls", withRun(proposeCall));
  app.put("/v1/runs/:run_id", withRun(openRun));
  app.get("/v1/runs/:run_id", withRun(runStatus));
  app.get("/v1/runs/:run_id/audit", requireRole("operator"), withRun(runAudit));
  app.get("/v1/runs/:run_id/escalations", requireRole("operator"), withRun(runEscalations));
  app.post("/v1/runs/:run_id/halt", requireRole("operator"), withRun(haltRun));

  app.notFound((c) => problem(refuse("not_found", `No route for ${c.req.method} ${c.req.path}.`)));
  app.onError((e) => {
    console.error("unhandled", e);
    return problem(
      refuse("internal_error", "The fence failed before deciding; nothing was applied."),
    );
  });
  return app;
}
