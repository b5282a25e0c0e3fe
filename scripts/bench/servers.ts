/**
 * The bench's `wrangler dev` servers: the fence, whose demo log backend answers at once and
 * which honours the development key, and the bench-only floor worker; each with fresh state in
 * a folder under a root the caller picks (on disk, or tmpfs).
 */
import { mkdirSync } from "node:fs";
import { type DevServer, startDev } from "../lib/dev-server.ts";
import { DEFAULT_KEY } from "../lib/target.ts";

/** The floor worker's wrangler config. */
export const FLOOR_CONFIG = "scripts/bench/floor/wrangler.toml";

/** A fresh fence, its state under `root`. */
export function startFence(root: string): Promise<DevServer> {
  mkdirSync(root, { recursive: true });
  return startDev({ DEMO_LOG_LATENCY_MS: "0-0", DEV_KEY: DEFAULT_KEY }, { stateRoot: root });
}

/** A fresh fence and floor worker, their state under `root`, for `use`; both stopped after. */
export async function withFenceAndFloor<T>(
  root: string,
  use: (fence: DevServer, floor: DevServer) => Promise<T>,
): Promise<T> {
  const fence = await startFence(root);
  try {
    const floor = await startDev({}, { stateRoot: root, config: FLOOR_CONFIG });
    try {
      return await use(fence, floor);
    } finally {
      floor.stop();
    }
  } finally {
    fence.stop();
  }
}
