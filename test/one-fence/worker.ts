/**
 * The worker of the `one-fence` project: the product's worker made from test/one-fence's
 * fence, as src/index.ts makes it from contracts/.
 */
import { createWorker } from "../../src/worker.ts";
import { FENCE } from "./fence.ts";

export { PrincipalConnections } from "../../src/connections/PrincipalConnections.ts";
export { TargetClaims } from "../../src/ledger/TargetClaims.ts";
export { TenantIndex } from "../../src/ledger/TenantIndex.ts";

const worker = createWorker(FENCE);

export const RunLedger = worker.RunLedger;
export type RunLedger = InstanceType<typeof RunLedger>;

export default worker.handler;
