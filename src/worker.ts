/**
 * One worker made from one fence: the app that gates with it, its scheduled drift check, and
 * the RunLedger class that decides with the same contracts and policy. An entry exports what
 * this returns, so the gate and the run's budget, caps, approvals and keys read one value.
 */
import { buildApp } from "./app.ts";
import type { Fence } from "./core/policy.ts";
import { checkDrift } from "./execute/drift-check.ts";
import { RunLedger } from "./ledger/RunLedger.ts";
import { withOAuth } from "./oauth/provider.ts";

/** The app, the worker's handler and its RunLedger class, all made for `fence`. */
export function createWorker(fence: Fence) {
  const app = buildApp(fence);
  /** The RunLedger class workerd builds (with two arguments) for this worker's fence. */
  class FencedRunLedger extends RunLedger {
    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env, fence);
    }
  }
  // OAuth for MCP hosts wraps the app: `/mcp` needs a token, the app serves the consent page.
  const oauth = withOAuth(app);
  const handler = {
    fetch: oauth.fetch,
    // The cron in wrangler.toml: record which pinned MCP tools drifted (docs/mcp-upstreams.md).
    scheduled(_controller, env, ctx) {
      ctx.waitUntil(checkDrift(env, fence.tools.values()));
    },
  } satisfies ExportedHandler<Env>;
  return { app, handler, RunLedger: FencedRunLedger };
}
