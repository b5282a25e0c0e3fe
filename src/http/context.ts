/**
 * The Hono context of the fence's routes: the caller's principal and the fence.
 */
import type { Context } from "hono";
import type { Role } from "../core/keys.ts";
import type { Fence } from "../core/policy.ts";
import type { AuditPrincipal } from "../core/principal.ts";

/** Who is calling, as established by authentication. */
export interface Principal {
  /** Tenant the caller belongs to; runs and cached results are scoped by it. */
  tenant: string;
  /** `agent` proposes calls and reads its runs; `operator` also audits and halts. */
  role: Role;
  /** Tools this caller may use, or null for every tool the policy allows. */
  tools: readonly string[] | null;
  /** SHA-256 hex of the caller's stored key, or null for the local development key. */
  keyId: string | null;
  /** Who the audit names as the caller: the key by digest and label, or a grant's person. */
  audited: AuditPrincipal;
}

/** Hono environment of the fence's routes. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** Who is calling. */
    principal: Principal;
    /** The contracts and policy the routes decide with. */
    fence: Fence;
    /** Whether the request came from this machine to a local `wrangler dev` (local-dev.ts). */
    local: boolean;
  };
}

export type AppContext = Context<AppEnv>;
