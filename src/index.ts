/**
 * The worker `wrangler deploy` ships: the fence of `contracts/`, its app, and the Durable
 * Object classes it exports, all made from that one fence (src/worker.ts).
 */
import { CONTRACTS, POLICY_SOURCE } from "../contracts/index.ts";
import { startFence } from "./fence.ts";
import { createWorker } from "./worker.ts";

export { PrincipalConnections } from "./connections/PrincipalConnections.ts";
export { TargetClaims } from "./ledger/TargetClaims.ts";
export { TenantIndex } from "./ledger/TenantIndex.ts";

const worker = createWorker(startFence(CONTRACTS, POLICY_SOURCE));

/** The run ledger, deciding with the fence the app gates with. */
export const RunLedger = worker.RunLedger;
export type RunLedger = InstanceType<typeof RunLedger>;

export default worker.handler;
