/**
 * What the console is built with and what its routes see. The key checks are the API's
 * own (src/http/auth.ts), handed in by the worker so that signing in to the console and
 * calling the API can never disagree about a key.
 */
import type { Context } from "hono";
import type { Fence } from "../core/policy.ts";
import type { Result } from "../core/result.ts";
import type { AuthFailure } from "../http/auth.ts";
import type { Principal } from "../http/context.ts";

/** The API's answer to "who does this key act as". */
type PrincipalAnswer = Promise<Result<Principal, AuthFailure>>;

/** What `buildConsole` needs from the worker. */
export interface ConsoleDeps {
  /** The contracts and policy the fence decides with. */
  fence: Fence;
  /** The API's key check: a presented key to its principal, for this request. */
  principalOfKey: (env: Env, key: string, request: Request) => PrincipalAnswer;
  /** The API's key check by digest (null: the development key), run on every request. */
  principalOfDigest: (env: Env, digest: string | null, request: Request) => PrincipalAnswer;
  /** Count a failed sign-in against the client's address, as the API counts failed keys. */
  signInFailuresExceeded: (env: Env, request: Request) => Promise<boolean>;
  /** Deepest JSON nesting the API accepts, to re-read a blocked call's payload the same way. */
  maxDepth: number;
}

/** Who is signed in, as checked on this request. */
export interface Operator {
  /** The operator's tenant: every run the console shows or acts on is the tenant's. */
  tenant: string;
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
