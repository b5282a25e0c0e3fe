/**
 * The bench's `wrangler dev` servers: the fence, whose demo log backend answers at once and
 * which honours the development key, and the bench-only floor worker; each with fresh state in
 * a folder under a root the caller picks (on disk, or tmpfs), and wrangler's local tracing on
 * (its default) or off.
 */
import { mkdirSync } from "node:fs";
import { type DevServer, startDev } from "../lib/dev-server.ts";
import { DEFAULT_KEY } from "../lib/target.ts";

/** The floor worker's wrangler config. */
export const FLOOR_CONFIG = "scripts/bench/floor/wrangler.toml";

/**
 * `wrangler dev` records a trace of every invocation, by default, into a collector it runs in
 * the same workerd as the worker; `X_LOCAL_OBSERVABILITY=false` turns that off. A deployed
 * worker has no such collector beside it. Set either way, so the caller's own environment
 * cannot change what a row is labelled.
 */
function tracing(traced: boolean): Record<string, string> {
  return { X_LOCAL_OBSERVABILITY: traced ? "true" : "false" };
}

/** A fresh fence, its state under `root`. */
export function startFence(root: string, traced = true): Promise<DevServer> {
  mkdirSync(root, { recursive: true });
  const vars = { DEMO_LOG_LATENCY_MS: "0-0", DEV_KEY: DEFAULT_KEY };
  return startDev(vars, { stateRoot: root, env: tracing(traced) });
}

/**
 * A fresh fence and floor worker, their state under `root` and wrangler's local tracing on or
 * off (`traced`), for `use`; both stopped after.
 */
export async function withFenceAndFloor<T>(
  root: string,
  use: (fence: DevServer, floor: DevServer) => Promise<T>,
  traced = true,
): Promise<T> {
  const fence = await startFence(root, traced);
  try {
    const options = { stateRoot: root, config: FLOOR_CONFIG, env: tracing(traced) };
    const floor = await startDev({}, options);
    try {
      return await use(fence, floor);
    } finally {
      floor.stop();
    }
  } finally {
    fence.stop();
  }
}
