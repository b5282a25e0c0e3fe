/** What the console's routes see: the signed-in operator. */
import type { Context } from "hono";
import type { AuditPrincipal } from "../core/principal.ts";
import type { RunSummary } from "../ledger/protocol.ts";

/** Who is signed in, as checked on this request. */
export interface Operator {
  /** The operator's tenant: every run the console shows or acts on is the tenant's. */
  tenant: string;
  /** SHA-256 hex of the operator's key, or null for the development key: who acted. */
  keyId: string | null;
  /** Who the audit names for the operator's acts: their key, or the person signed in. */
  principal: AuditPrincipal;
  /** The tenant's recent runs, read once per request when a page asks (attention.ts). */
  runs?: () => Promise<RunSummary[]>;
}

/** Hono environment of the console's routes. */
export interface ConsoleEnv {
  Bindings: Env;
  Variables: {
    /** The signed-in operator (set by the session guard). */
    operator: Operator;
  };
}

export type ConsoleContext = Context<ConsoleEnv>;
