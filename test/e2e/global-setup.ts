import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { type DevServer, freePort, startDev } from "../../scripts/lib/dev-server.ts";
import { type McpServerProcess, startEverything } from "../../scripts/lib/mcp-everything.ts";
import { type HostileServer, startHostile } from "./hostile-mcp-server.ts";
import { type NotesUpstream, startNotes } from "./notes-upstream.ts";
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startIdp } from "./oidc-idp.ts";
import { type Loopback, startOtlpReceiver, startTraceRecorder } from "./otlp-receiver.ts";
import { startReceiver } from "./webhook-receiver.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the `wrangler dev` the e2e project runs against. */
    fenceUrl: string;
    /** MCP endpoint of the reference server the fence's `everything_*` contracts call. */
    mcpUrl: string;
    /** Process id of that server, so a test can stop it mid-run. */
    mcpPid: number;
    /** MCP endpoint of the hostile server the fence's `kb_search` contract calls. */
    hostileUrl: string;
    /** Base URL of the approval webhook receiver that `wrangler dev` posts to. */
    hookUrl: string;
    /** The secret the webhook bodies are signed with. */
    hookSecret: string;
    /** Base URL of the OTLP/HTTP receiver the fence exports its telemetry to. */
    otlpUrl: string;
    /** Base URL of the proxy in front of the MCP server that notes the trace context it sees. */
    recorderUrl: string;
    /** Issuer of the OpenID provider people sign in to the fence's console through. */
    idpIssuer: string;
    /** MCP endpoint of the OAuth-protected notes server the `notes_*` contracts call. */
    notesUrl: string;
    /** Issuer of the notes server's authorization server. */
    notesIssuer: string;
    /** The `wrangler dev` state folder (keys are issued into it with `--persist-to`). */
    devState: string;
    /** The file that gets everything the `wrangler dev` and its worker print. */
    devLog: string;
  }
}

/** The webhook secret of the e2e fence; a test value, never a deployment's. */
const HOOK_SECRET = "tf_e2e_webhook_secret";

let dev: DevServer | undefined;
let mcp: McpServerProcess | undefined;
let hostile: HostileServer | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let otlp: Loopback | undefined;
let recorder: Loopback | undefined;

/**
 * The e2e fence's telemetry: exported to the loopback receiver with a header from the
 * "secret", half of the applied calls' traces sampled (by their random bits), metrics sent
 * with every export.
 */
function telemetryVars(endpoint: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: "x-otlp-key=e2e-otlp-key",
    OTEL_SERVICE_NAME: "toolfence-e2e",
    OTEL_TRACES_SAMPLER_ARG: "0.5",
    OTEL_METRIC_EXPORT_INTERVAL: "0",
  };
}
let idp: Awaited<ReturnType<typeof startIdp>> | undefined;
let notes: NotesUpstream | undefined;
let logDir: string | undefined;

/**
 * The reference MCP server, a hostile MCP server and the approval webhook receiver, each on a
 * free loopback port, then one `wrangler dev` on another with fresh state, the development
 * key, an instant log backend, both MCP servers' URLs, the webhook pointed at the receiver, a
 * fresh secret for console sessions, and `/__scheduled` to run the drift check at once. Then a
 * real OpenID provider on the port the fence was told, whose client's redirect URI is that
 * fence's callback. The OAuth-protected notes server and its authorization server start first,
 * so the fence gets their URL and a key ring for the connections; everything the dev server
 * prints is also kept in a file, for the tests that look for tokens in its logs.
 */
export async function setup(project: TestProject): Promise<void> {
  mcp = await startEverything();
  hostile = await startHostile();
  receiver = await startReceiver();
  otlp = await startOtlpReceiver();
  // The MCP server is reached through a proxy that notes the trace context it is sent.
  recorder = await startTraceRecorder(mcp.url);
  const idpIssuer = `http://127.0.0.1:${await freePort()}`;
  notes = await startNotes();
  logDir = mkdtempSync(join(tmpdir(), "toolfence-e2e-log-"));
  const devLog = join(logDir, "wrangler-dev.log");
  dev = await startDev(
    {
      ...telemetryVars(otlp.url),
      DEV_KEY: "tf_dev_local_key",
      DEMO_LOG_LATENCY_MS: "0-0",
      MCP_EVERYTHING_URL: `${recorder.url}${new URL(mcp.url).pathname}`,
      MCP_KB_URL: hostile.url,
      APPROVAL_WEBHOOK_URL: `${receiver.url}/hook`,
      APPROVAL_WEBHOOK_SECRET: HOOK_SECRET,
      CONSOLE_SECRET: crypto.randomUUID() + crypto.randomUUID(),
      OIDC_ISSUER: idpIssuer,
      OIDC_CLIENT_ID: IDP_CLIENT_ID,
      OIDC_CLIENT_SECRET: IDP_CLIENT_SECRET,
      MCP_NOTES_URL: notes.mcpUrl,
      // A fresh key ring for the upstream connections; a test value, never a deployment's.
      CONNECTION_KEYS: `e2e:${randomBytes(32).toString("base64url")}`,
    },
    { testScheduled: true, logFile: devLog },
  );
  idp = await startIdp(idpIssuer, `${dev.url}/console/oidc/callback`);
  project.provide("fenceUrl", dev.url);
  project.provide("mcpUrl", mcp.url);
  project.provide("mcpPid", mcp.pid);
  project.provide("hostileUrl", hostile.url);
  project.provide("hookUrl", receiver.url);
  project.provide("hookSecret", HOOK_SECRET);
  project.provide("otlpUrl", otlp.url);
  project.provide("recorderUrl", recorder.url);
  project.provide("idpIssuer", idpIssuer);
  project.provide("notesUrl", notes.mcpUrl);
  project.provide("notesIssuer", notes.issuer);
  project.provide("devState", dev.state);
  project.provide("devLog", devLog);
}

export async function teardown(): Promise<void> {
  dev?.stop();
  await mcp?.stop();
  await hostile?.close();
  await receiver?.stop();
  await otlp?.stop();
  await recorder?.stop();
  await idp?.stop();
  await notes?.stop();
  if (logDir !== undefined) rmSync(logDir, { recursive: true, force: true });
}
