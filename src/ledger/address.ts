/**
 * Where a run's and a tenant's objects live: the names are the isolation between tenants
 * (a run's object is named by tenant and run id, so two tenants never share a run).
 */
import type { RunRef } from "./protocol.ts";

/** Run ids travel in URLs and object names: a short, plain charset keeps both safe. */
export const RUN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The run's ledger object; its name carries the tenant, so tenants never share a run. */
export function ledgerOf(env: Env, ref: RunRef) {
  return env.RUN_LEDGER.getByName(`${ref.tenant}/${ref.runId}`);
}

/** The tenant's TenantIndex: its run and approval indexes (its target claims are sharded). */
export function tenantIndexOf(env: Env, tenant: string) {
  return env.TENANT_INDEX.getByName(tenant);
}
