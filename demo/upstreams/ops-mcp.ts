/**
 * The demo's MCP server: a small operations service (service status, restarts) speaking MCP
 * over streamable HTTP with JSON responses, stateless, served by the demo upstreams at `/mcp`.
 * It stands for a team's existing MCP server: the fence imports its tools with
 * `npm run contracts -- import` and calls them as an MCP client. A restart is deduplicated
 * by the idempotency key in `_meta`, as a server that honours it would.
 */
import { receive } from "./inbox.ts";

/** The protocol revisions this server answers in; the newest is offered by default. */
const VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

const SERVICE = {
  type: "string",
  pattern: "^[a-z0-9-]{1,63}$",
  description: "Kubernetes service name: lowercase letters, digits and dashes",
};

const TOOLS = [
  {
    name: "service_status",
    description: "Health, replica count and deployed version of one service.",
    inputSchema: {
      type: "object",
      properties: { service: SERVICE },
      required: ["service"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        service: { type: "string" },
        healthy: { type: "boolean" },
        replicas: { type: "integer", minimum: 0 },
        version: { type: "string" },
      },
      required: ["service", "healthy", "replicas", "version"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  {
    name: "restart_service",
    description: "Rolling restart of one service's pods.",
    inputSchema: {
      type: "object",
      properties: { service: SERVICE, reason: { type: "string", minLength: 1, maxLength: 200 } },
      required: ["service", "reason"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  },
];

/** The fence's names for the tools, as imported with `--prefix ops_`; the inbox counts by them. */
const FENCE_NAMES: Record<string, string> = {
  service_status: "ops_service_status",
  restart_service: "ops_restart_service",
};

/** Restarts by idempotency key, so a retried restart is not done twice (bounded, oldest out). */
const restarts = new Map<string, string>();
const MAX_RESTARTS = 1_024;

interface RpcRequest {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

/** Answer one POST to `/mcp`. */
export async function answerMcp(request: Request): Promise<Response> {
  if (request.method !== "POST")
    return new Response(null, { status: 405, headers: { Allow: "POST" } });
  const message = (await request.json().catch(() => null)) as RpcRequest | null;
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    return rpcError(null, -32700, "a single JSON-RPC message is expected");
  }
  // A notification (no id) needs no answer.
  if (message.id === undefined) return new Response(null, { status: 202 });
  const run = `${request.headers.get("X-Toolfence-Tenant") ?? "default"}/${request.headers.get("X-Toolfence-Run") ?? ""}`;
  switch (message.method) {
    case "initialize":
      return rpcResult(message.id, initialize(message.params));
    case "ping":
      return rpcResult(message.id, {});
    case "tools/list":
      return rpcResult(message.id, { tools: TOOLS });
    case "tools/call":
      return rpcResult(message.id, await callTool(message.params ?? {}, run));
    default:
      return rpcError(message.id, -32601, `method ${String(message.method)} not found`);
  }
}

function initialize(params: Record<string, unknown> | undefined) {
  const asked = params?.protocolVersion;
  const protocolVersion =
    typeof asked === "string" && VERSIONS.includes(asked) ? asked : VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: "toolfence-demo-ops", version: "1.0.0" },
  };
}

async function callTool(params: Record<string, unknown>, run: string) {
  const name = String(params.name);
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const key =
    typeof meta["io.toolfence/idempotency-key"] === "string"
      ? meta["io.toolfence/idempotency-key"]
      : null;
  const fenceName = FENCE_NAMES[name];
  if (fenceName === undefined) return failure(`unknown tool ${name}`);
  // Like any upstream, it trusts its input no more than it must: it checks and counts it.
  if (!receive(run, fenceName, args, key)) return failure("the arguments break the tool's schema");
  const service = String(args.service);
  if (name === "service_status") return status(service);
  return restart(service, key);
}

/** Deterministic status: the same service always looks the same. */
async function status(service: string) {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(service)),
  );
  const b0 = digest[0] ?? 0;
  const b1 = digest[1] ?? 0;
  const structured = {
    service,
    healthy: b0 % 5 !== 0,
    replicas: 2 + (b1 % 4),
    version: `1.${b0 % 20}.${b1 % 10}`,
  };
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

function restart(service: string, key: string | null) {
  if (key === null) return failure("a restart needs an idempotency key in _meta");
  let id = restarts.get(key);
  if (id === undefined) {
    if (restarts.size >= MAX_RESTARTS) restarts.delete(restarts.keys().next().value ?? "");
    id = `rs-${restarts.size + 1}-${service}`;
    restarts.set(key, id);
  }
  return { content: [{ type: "text", text: `restart ${id} of ${service} started` }] };
}

function failure(text: string) {
  return { content: [{ type: "text", text }], isError: true };
}

function rpcResult(id: string | number, result: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id, result });
}

function rpcError(id: string | number | null, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } });
}
