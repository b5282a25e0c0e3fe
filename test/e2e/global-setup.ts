import type { TestProject } from "vitest/node";
import { type DevServer, startDev } from "../../scripts/lib/dev-server.ts";
import { type McpServerProcess, startEverything } from "../../scripts/lib/mcp-everything.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the `wrangler dev` the e2e project runs against. */
    fenceUrl: string;
    /** MCP endpoint of the reference server the fence's `everything_*` contracts call. */
    mcpUrl: string;
    /** Process id of that server, so a test can stop it mid-run. */
    mcpPid: number;
  }
}

let dev: DevServer | undefined;
let mcp: McpServerProcess | undefined;

/**
 * The reference MCP server on a free loopback port, then one `wrangler dev` on another with
 * fresh state, the development key, an instant log backend and the server's URL as a var.
 */
export async function setup(project: TestProject): Promise<void> {
  mcp = await startEverything();
  dev = await startDev({
    DEV_KEY: "tf_dev_local_key",
    DEMO_LOG_LATENCY_MS: "0-0",
    MCP_EVERYTHING_URL: mcp.url,
  });
  project.provide("fenceUrl", dev.url);
  project.provide("mcpUrl", mcp.url);
  project.provide("mcpPid", mcp.pid);
}

export async function teardown(): Promise<void> {
  dev?.stop();
  await mcp?.stop();
}
