/**
 * `toolfence/client`: a typed client of the fence's REST API. No runtime dependency beyond
 * `fetch`; tool names and arguments are inferred from the contracts, so a wrong tool name
 * or argument is a type error in the agent's code.
 */
import type { Transport } from "./http.ts";
import { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
import { type FenceRun, runOf } from "./run.ts";

export { FenceProblem } from "./http.ts";
export { intentKey } from "./keys.ts";
export type { RetryOptions } from "./retry.ts";
export type { AuditQuery, CallOptions, FenceRun, MutationCallOptions } from "./run.ts";
export type { ArgsOf, MutationName, ResultOf, ToolName } from "./tools.ts";
export type * from "./wire.ts";

/** How to reach the fence. */
export interface ClientOptions {
  /** Base URL of the fence, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An API key (`npm run keys -- create`), sent as `Authorization: Bearer`. */
  key: string;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
  /** How calls answered `retry` are retried. */
  retry?: RetryOptions;
}

/** A client of one fence with one key. */
export interface FenceClient {
  /** The run `id`: calls, status, audit, halt and limits. */
  run(id: string): FenceRun;
}

export function createClient(options: ClientOptions): FenceClient {
  const transport: Transport = {
    url: options.url.replace(/\/+$/, ""),
    key: options.key,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retry: { ...DEFAULT_RETRY, ...options.retry },
  };
  return {
    run: (id) => runOf(transport, id),
  };
}
