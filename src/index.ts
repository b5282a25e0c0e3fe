import { FENCE } from "./fence.ts";
import { buildApp } from "./http/app.ts";

export { TicketDesk } from "./demo/TicketDesk.ts";
export { DemoUpstreams } from "./demo/upstreams.ts";
export { RunLedger } from "./ledger/RunLedger.ts";

const app = buildApp(FENCE);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
