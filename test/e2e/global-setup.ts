import type { TestProject } from "vitest/node";
import { type DevServer, startDev } from "../../scripts/lib/dev-server.ts";
import { startReceiver } from "./webhook-receiver.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the `wrangler dev` the e2e project runs against. */
    fenceUrl: string;
    /** Base URL of the approval webhook receiver that `wrangler dev` posts to. */
    hookUrl: string;
    /** The secret the webhook bodies are signed with. */
    hookSecret: string;
  }
}

/** The webhook secret of the e2e fence; a test value, never a deployment's. */
const HOOK_SECRET = "tf_e2e_webhook_secret";

let dev: DevServer | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

/**
 * One `wrangler dev` on a free loopback port, fresh state, the development key, an instant log
 * backend, and its approval webhook pointed at a real receiver on another free loopback port, and a
 * fresh secret for console sessions.
 */
export async function setup(project: TestProject): Promise<void> {
  receiver = await startReceiver();
  dev = await startDev({
    DEV_KEY: "tf_dev_local_key",
    DEMO_LOG_LATENCY_MS: "0-0",
    APPROVAL_WEBHOOK_URL: `${receiver.url}/hook`,
    APPROVAL_WEBHOOK_SECRET: HOOK_SECRET,
    CONSOLE_SECRET: crypto.randomUUID() + crypto.randomUUID(),
  });
  project.provide("fenceUrl", dev.url);
  project.provide("hookUrl", receiver.url);
  project.provide("hookSecret", HOOK_SECRET);
}

export async function teardown(): Promise<void> {
  dev?.stop();
  await receiver?.stop();
}
