/**
 * The fence as `npm run dev` runs it (`[env.demo]` in wrangler.toml): the product's worker
 * made from the demo's fence, whose tools reach the demo upstreams worker (demo/wrangler.toml)
 * through the `DEMO` service binding that only this environment declares.
 */
import { isLocalDevelopment } from "../src/http/local-dev.ts";
import { createWorker } from "../src/worker.ts";
import { FENCE } from "./fence.ts";

export { PrincipalConnections } from "../src/connections/PrincipalConnections.ts";
export { TargetClaims } from "../src/ledger/TargetClaims.ts";
export { TenantIndex } from "../src/ledger/TenantIndex.ts";

// The demo's MCP server, so `npm run contracts -- import` can list it under `npm run dev`.
const worker = createWorker(FENCE, (app) => {
  app.all("/demo/mcp", (c) => {
    if (!isLocalDevelopment(c.req.raw.headers, c.req.url)) return c.notFound();
    const upstreams = c.env.DEMO;
    if (upstreams === undefined) return c.notFound();
    return upstreams.fetch(new Request("https://demo.internal/mcp", c.req.raw));
  });
});

/** The run ledger, deciding with the demo's fence. */
export const RunLedger = worker.RunLedger;
export type RunLedger = InstanceType<typeof RunLedger>;

export default worker.handler;
