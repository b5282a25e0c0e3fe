import type { Context } from "hono";
import type { Fence } from "../core/policy.ts";

/** Who is calling, as established by authentication. */
export interface Principal {
  /** Tenant the caller belongs to; runs and cached results are scoped by it. */
  tenant: string;
  /** `agent` proposes calls and reads its runs; `operator` also audits and halts. */
  role: "agent" | "operator";
  /** Tools this caller may use, or null for every tool the policy allows. */
  tools: readonly string[] | null;
}

/** Hono environment of the fence's routes. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** Who is calling. */
    principal: Principal;
    /** The contracts and policy the routes decide with. */
    fence: Fence;
  };
}

export type AppContext = Context<AppEnv>;
