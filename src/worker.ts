/**
 * One worker made from one fence: the app that gates with it, its scheduled drift check, and
 * the RunLedger class that decides with the same contracts and policy. An entry exports what
 * this returns, so the gate and the run's budget, caps, approvals and keys read one value.
 */
import type { Hono } from "hono";
import type { Fence } from "./core/policy.ts";
import { checkDrift } from "./execute/drift-check.ts";
import type { AppEnv } from "./http/context.ts";
import { RunLedger } from "./ledger/RunLedger.ts";
import type { Handler } from "./oauth/provider.ts";
import { loadTelemetry } from "./telemetry/index.ts";

/**
 * The worker's handler and its RunLedger class, made for `fence`. The app (every route, and
 * OAuth around it) is loaded (a dynamic import: its modules, Hono's, jose's and the OAuth
 * provider's) and built at the isolate's first request, not when the module loads: an isolate
 * that only runs Durable Objects never evaluates it, and startup is shorter (BENCHMARKS.md,
 * "Bundle and startup"). `extend` adds an entry's own routes to it when built.
 */
export function createWorker(fence: Fence, extend?: (app: Hono<AppEnv>) => void) {
  /** The RunLedger class workerd builds (with two arguments) for this worker's fence. */
  class FencedRunLedger extends RunLedger {
    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env, fence);
    }
  }
  let served: Promise<Handler> | undefined;
  // OAuth for MCP hosts wraps the app: `/mcp` needs a token, the app serves the consent page.
  const build = async (): Promise<Handler> => {
    const [{ buildApp }, { withOAuth }] = await Promise.all([
      import("./app.ts"),
      import("./oauth/provider.ts"),
    ]);
    const app = buildApp(fence);
    extend?.(app);
    return withOAuth(app, fence);
  };
  const handler = {
    async fetch(request: Request, env: Env, ctx: ExecutionContext) {
      // The OpenTelemetry SDK, when an endpoint is configured: loaded before the request
      // records anything, once per isolate; with none it is never loaded.
      await loadTelemetry(env);
      // A build that failed is not kept: the next request builds again.
      served ??= build().catch((e: unknown) => {
        served = undefined;
        throw e;
      });
      return (await served).fetch(request, env, ctx);
    },
    // The cron in wrangler.toml: record which pinned MCP tools drifted (docs/mcp-upstreams.md),
    // and delete the upstream connections of revoked keys (docs/security.md).
    scheduled(_controller, env, ctx) {
      ctx.waitUntil(checkDrift(env, fence.tools.values()));
      ctx.waitUntil(import("./connections/revoked-keys.ts").then((m) => m.sweepRevokedKeys(env)));
    },
  } satisfies ExportedHandler<Env>;
  return { handler, RunLedger: FencedRunLedger };
}
