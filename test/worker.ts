/**
 * The worker the workers tests run: the demo fence (demo/worker.ts) and, in the same worker,
 * the demo upstreams (demo/upstreams/) that its `DEMO` binding reaches (vitest.config.ts).
 */

export { DemoUpstreams, TicketDesk } from "../demo/upstreams/index.ts";
export {
  default,
  PrincipalConnections,
  RunLedger,
  TargetClaims,
  TenantIndex,
} from "../demo/worker.ts";
