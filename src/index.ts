import { buildApp } from "./app.ts";
import { checkDrift } from "./execute/drift.ts";
import { FENCE } from "./fence.ts";

export { TicketDesk } from "./demo/TicketDesk.ts";
export { DemoUpstreams } from "./demo/upstreams.ts";
export { RunLedger } from "./ledger/RunLedger.ts";
export { TenantLedger } from "./ledger/TenantLedger.ts";

const app = buildApp(FENCE);

export default {
  fetch: app.fetch,
  // The cron in wrangler.toml: record which pinned MCP tools drifted (docs/mcp-upstreams.md).
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(checkDrift(env, FENCE.tools.values()));
  },
} satisfies ExportedHandler<Env>;
