/**
 * The fence's one Hono app: every route, REST, MCP, the console and the public keys, mounted
 * behind the edge guards (header size, credentials, rate).
 */
import { Hono } from "hono";
import { CLIENT_DOCUMENT_PATH, servedClientDocument } from "./connections/client-document.ts";
import { buildConsole } from "./console/app.tsx";
import { type CatalogueFormat, catalogue } from "./core/catalogue.ts";
import { type Fence, toolsFor } from "./core/policy.ts";
import { refuse } from "./core/reasons.ts";
import { offeredTools } from "./execute/configured.ts";
import { driftedTools } from "./execute/drift.ts";
import { FailedAfterUpstream } from "./http/after-upstream.ts";
import {
  decideApproval,
  resolveEscalation,
  runApprovals,
  tenantApprovals,
} from "./http/approvals.ts";
import { publishedKeys } from "./http/audit-keys.ts";
import { auditHead, auditSegments, auditVerify } from "./http/audit-routes.ts";
import { authenticate, requireRole } from "./http/auth.ts";
import { proposeCall } from "./http/calls.ts";
import type { AppContext, AppEnv } from "./http/context.ts";
import { headerLimit, noStore, rateLimit } from "./http/guards.ts";
import { openApiDocument } from "./http/openapi.ts";
import { problem } from "./http/problem.ts";
import { haltRun, openRun, runAudit, runEscalations, runRef, runStatus } from "./http/runs.ts";
import type { RunRef } from "./ledger/protocol.ts";
import { buildConnect } from "./oauth/connect.tsx";
import { grantPrincipal, grantRun } from "./oauth/resource.ts";

const FORMATS: readonly CatalogueFormat[] = ["json", "openai", "anthropic"];

/**
 * The MCP edge, loaded on its first request: the SDK builds its protocol schemas when its
 * module is evaluated, which would otherwise add to every isolate's startup.
 */
async function mcpEndpoint(c: AppContext, ref: RunRef): Promise<Response> {
  const { mcpEndpoint: endpoint } = await import("./mcp/route.ts");
  return endpoint(c, ref);
}

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
  // Public: the document describes the API and grants nothing, so it needs no key.
  app.get("/openapi.json", () => openApiDocument());
  // Public: the fence's Client ID Metadata Document, which upstreams called as the principal
  // fetch to know the fence as an OAuth client (src/connections/oauth-client.ts).
  app.get(CLIENT_DOCUMENT_PATH, (c) => {
    const document = servedClientDocument(c.env);
    if (document === null) {
      return problem(
        refuse("not_found", "This fence has no HTTPS PUBLIC_URL, so no client document."),
      );
    }
    return c.json(document, 200, { "Cache-Control": "public, max-age=3600" });
  });
  // Public: anyone may check a signed audit head offline against these keys.
  app.get("/.well-known/toolfence-audit-keys", (c) => c.json(publishedKeys(c.env, c.req.raw)));

  app.use("/v1/*", async function withFence(c, next) {
    c.set("fence", fence);
    await next();
  });
  // Answers that carry a tenant's data are never kept by a cache.
  app.use("/v1/runs/*", noStore());
  app.use("/v1/approvals", noStore());
  // Cheapest refusals first: oversized headers, then credentials, then the key's rate.
  app.use("/v1/*", headerLimit(), authenticate(), rateLimit());

  app.get("/v1/tools", async (c) => {
    const format = (c.req.query("format") ?? "json") as CatalogueFormat;
    if (!FORMATS.includes(format)) {
      return problem(
        refuse("not_found", `Unknown catalogue format; use one of ${FORMATS.join(", ")}.`),
      );
    }
    // A tool whose upstream is not configured here is left out, and named with what it lacks.
    const { tools, unavailable } = offeredTools(toolsFor(fence, c.get("principal").tools), c.env);
    const listed = catalogue(tools, format) as { tools: Array<{ name: string }> };
    const left = unavailable.length === 0 ? {} : { unavailable };
    if (format !== "json" || !tools.some((t) => t.upstream.kind === "mcp")) {
      return c.json({ ...listed, ...left });
    }
    // A drifted MCP tool is marked, so an operator sees it before a call is refused.
    const drifted = await driftedTools(c.env);
    return c.json({
      tools: listed.tools.map((t) => (drifted.has(t.name) ? { ...t, drifted: true } : t)),
      ...left,
    });
  });

  app.post("/v1/runs/:run_id/calls", withRun(proposeCall));
  app.on(["POST", "GET", "DELETE"], "/v1/runs/:run_id/mcp", withRun(mcpEndpoint));
  app.put("/v1/runs/:run_id", withRun(openRun));
  app.get("/v1/runs/:run_id", withRun(runStatus));
  app.get("/v1/runs/:run_id/audit", requireRole("operator"), withRun(runAudit));
  app.get("/v1/runs/:run_id/audit/head", requireRole("operator"), withRun(auditHead));
  app.get("/v1/runs/:run_id/audit/verify", requireRole("operator"), withRun(auditVerify));
  app.get("/v1/runs/:run_id/audit/segments", requireRole("operator"), withRun(auditSegments));
  app.get("/v1/runs/:run_id/escalations", requireRole("operator"), withRun(runEscalations));
  app.post("/v1/runs/:run_id/halt", requireRole("operator"), withRun(haltRun));
  app.get("/v1/approvals", requireRole("operator"), tenantApprovals);
  app.get("/v1/runs/:run_id/approvals", requireRole("operator"), withRun(runApprovals));
  const decide = withRun(decideApproval);
  app.post("/v1/runs/:run_id/approvals/:approval_id", requireRole("operator"), decide);
  const resolve = withRun(resolveEscalation);
  app.post("/v1/runs/:run_id/escalations/:seq", requireRole("operator"), resolve);

  // The connector URL for MCP hosts: the OAuth provider (src/oauth/provider.ts) lets only a
  // valid token for this fence's /mcp through, with its grant.
  app.use("/mcp", async function withFence(c, next) {
    c.set("fence", fence);
    await next();
  });
  app.on(["POST", "GET", "DELETE"], "/mcp", headerLimit(), grantPrincipal(), rateLimit(), (c) =>
    grantRun(c).then((ref) => mcpEndpoint(c, ref)),
  );
  // Connecting an app: sign in and consent (OAuth's authorization endpoint).
  app.route("/", buildConnect(fence));
  // The operator console: HTML pages under /console with their own guards and sessions.
  app.route("/", buildConsole(fence));

  app.notFound((c) => problem(refuse("not_found", `No route for ${c.req.method} ${c.req.path}.`)));
  app.onError((e) => {
    console.error("unhandled", e);
    if (e instanceof FailedAfterUpstream) {
      const detail = `The fence failed after calling ${e.tool}; whether it acted is unknown. Ask an operator, who reads the run's audit, before sending it again.`;
      return problem(refuse("internal_error_after_upstream", detail));
    }
    return problem(
      refuse("internal_error", "The fence failed before calling any tool; nothing was applied."),
    );
  });
  return app;
}
