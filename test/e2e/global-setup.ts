import type { TestProject } from "vitest/node";
import { type DevServer, startDev } from "../../scripts/lib/dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the `wrangler dev` the e2e project runs against. */
    fenceUrl: string;
  }
}

let dev: DevServer | undefined;

/**
 * One `wrangler dev` on a free loopback port, fresh state, the development key, an instant log
 * backend, and a fresh secret for console sessions.
 */
export async function setup(project: TestProject): Promise<void> {
  dev = await startDev({
    DEV_KEY: "tf_dev_local_key",
    DEMO_LOG_LATENCY_MS: "0-0",
    CONSOLE_SECRET: crypto.randomUUID() + crypto.randomUUID(),
  });
  project.provide("fenceUrl", dev.url);
}

export function teardown(): void {
  dev?.stop();
}
