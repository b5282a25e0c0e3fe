import { buildApp } from "./app.ts";
import { FENCE } from "./fence.ts";

export { TicketDesk } from "./demo/TicketDesk.ts";
export { DemoUpstreams } from "./demo/upstreams.ts";
export { RunLedger } from "./ledger/RunLedger.ts";
export { TenantLedger } from "./ledger/TenantLedger.ts";

const app = buildApp(FENCE);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
