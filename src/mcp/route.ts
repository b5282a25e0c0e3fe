/**
 * `POST /v1/runs/{run_id}/mcp`: the fence as a remote MCP server (Streamable HTTP, stateless,
 * JSON responses). Authentication, tenant, role and key subset are the REST API's (the
 * middleware ran before this). Both protocol eras are served: 2025-era requests (initialize
 * handshake) by a per-request stateless transport, 2026-07-28 requests (`server/discover`,
 * per-request `_meta`) by the SDK's handler. Every `tools/call` becomes a proposal of form
 * `mcp` in the one pipeline, so budget, caps, deadline, halt and cache are shared with REST.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  localhostAllowedHostnames,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { ToolContract } from "../core/contract.ts";
import { consoleSecret } from "../core/keys.ts";
import { approvalRulesOf, toolsFor } from "../core/policy.ts";
import { err, ok } from "../core/result.ts";
import { offeredTools } from "../execute/configured.ts";
import { decide } from "../http/calls.ts";
import type { AppContext } from "../http/context.ts";
import { spendRequests } from "../http/guards.ts";
import { MAX_BODY_BYTES } from "../http/limits.ts";
import type { RunRef } from "../ledger/protocol.ts";
import type { TraceCarrier } from "../telemetry/index.ts";
import { type DoorRefusal, doorAnswer, type McpMessage, readMessage } from "./door.ts";
import { roundSeal } from "./input-relay.ts";
import { relaysContent } from "./results.ts";
import { fenceServer, type McpCallContext } from "./server.ts";
import { taskSeal } from "./tasks.ts";

/** Where the per-request context rides through the SDK's handler (`authInfo.extra`). */
const CONTEXT = "toolfence";

let modern: McpHttpHandler | undefined;

/**
 * The 2026-07-28 leg, built once per isolate on first use: it holds no session, only a
 * per-request factory.
 */
function modernLeg(): McpHttpHandler {
  modern ??= createMcpHandler(
    (ctx) => fenceServer(ctx.authInfo?.extra?.[CONTEXT] as McpCallContext, "2026-07-28"),
    // JSON, upgraded to SSE when an upstream tool's progress or log messages come before the
    // result (the SDK's `auto`); the fence's own tools send none.
    { legacy: "reject", responseMode: "auto", maxRequestBodySize: MAX_BODY_BYTES },
  );
  return modern;
}

function contextOf(c: AppContext, ref: RunRef, message: McpMessage): McpCallContext {
  const fence = c.get("fence");
  const secret = consoleSecret(c.env);
  return {
    ...offeredTools(toolsFor(fence, c.get("principal").tools), c.env),
    approvable: (name) => approvalRulesOf(fence, name).length > 0,
    approvalPage: (id) => approvalPageOf(c.req.url, ref, id),
    tasks: secret === null ? null : taskSeal(secret, ref),
    exists: (name) => fence.tools.has(name),
    // A mutation sent without a key gets one derived by the gate, from the validated call.
    rounds: secret === null ? null : roundSeal(secret, ref),
    propose: (name, args, key, id, meta, via, during) => {
      const call = { tool: name, args, ...(key === undefined ? {} : { idempotency_key: key }) };
      return decide(c, ref, {
        contentType: "application/json",
        body: ok(JSON.stringify(call)),
        headerKey: null,
        form: "mcp",
        received: via?.received ?? message.received(id),
        trace: {
          carrier: carrierOf(c, meta),
          mcp: { method: via?.method ?? "tools/call", requestId: id },
        },
        ...during,
      });
    },
  };
}

/**
 * The console page of one approval, on the fence's own origin (the request's: on Workers its
 * host is the request's `Host`, which the rebinding check has held to the fence's names).
 */
function approvalPageOf(requestUrl: string, ref: RunRef, id: string): string {
  const path = `/console/runs/${encodeURIComponent(ref.runId)}/approvals/${encodeURIComponent(id)}`;
  return new URL(path, requestUrl).href;
}

/**
 * The client's trace context: the request's `_meta` `traceparent` / `tracestate` when it sent
 * them (the MCP convention for W3C Trace Context), else the HTTP request's headers.
 */
function carrierOf(c: AppContext, meta: Record<string, unknown> | undefined): TraceCarrier {
  const field = (name: string) => (typeof meta?.[name] === "string" ? meta[name] : undefined);
  const traceparent = field("traceparent");
  if (traceparent !== undefined) return { traceparent, tracestate: field("tracestate") };
  return { traceparent: c.req.header("traceparent"), tracestate: c.req.header("tracestate") };
}

/**
 * A body refused before any JSON-RPC was read: audited as a call of form `mcp` that could
 * not be read, as REST audits one, then answered as a JSON-RPC error.
 */
async function refusedAtDoor(c: AppContext, ref: RunRef, door: DoorRefusal): Promise<Response> {
  const decision = await decide(c, ref, {
    contentType: c.req.header("Content-Type") ?? null,
    body: err(door.refusal),
    headerKey: null,
    form: "mcp",
    received: door.text,
  });
  return doorAnswer(decision, door.code);
}

/**
 * The host names the fence answers on: `FENCE_HOSTNAMES` (comma-separated), and the loopback
 * names under local development. None configured: only local development is served.
 */
export function fenceHostnames(env: Env, local: boolean): string[] {
  const configured = (env.FENCE_HOSTNAMES ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  return local ? [...configured, ...localhostAllowedHostnames()] : configured;
}

/**
 * DNS-rebinding defence (MCP transport spec, "Security Warning"), for every key: the `Host`
 * must be one of the fence's host names, and a browser's `Origin`, when sent, must be the
 * fence's own origin in full (RFC 6454 §5: scheme, host and port), not merely its host name.
 */
function rebindingRefusal(c: AppContext): Response | undefined {
  // On Workers the URL's host is the request's Host header.
  const own = new URL(c.req.url);
  if (!fenceHostnames(c.env, c.get("local")).includes(own.hostname)) {
    return forbidden(`Invalid Host: ${own.hostname}`);
  }
  const origin = c.req.header("Origin");
  if (origin === undefined || origin === own.origin) return undefined;
  return forbidden(`Invalid Origin: ${origin.slice(0, 100)}`);
}

/** A JSON-RPC error answered 403, as the MCP SDK's own validators answer. */
function forbidden(message: string): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message }, id: null },
    { status: 403 },
  );
}

/** Whether `body` holds a `tools/call` of a tool whose upstream's notifications are relayed. */
function callsRelayingTool(body: unknown, tools: readonly ToolContract[]): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m: { method?: unknown; params?: { name?: unknown } } | null) => {
    if (m?.method !== "tools/call") return false;
    return relaysContent(tools.find((t) => t.name === m.params?.name));
  });
}

/** The MCP endpoint of one run. */
export async function mcpEndpoint(c: AppContext, ref: RunRef): Promise<Response> {
  const request = c.req.raw;
  if (request.method !== "POST") {
    // Stateless: no session to resume (GET) or end (DELETE).
    return new Response("Method not allowed: this MCP endpoint is stateless; POST JSON-RPC.", {
      status: 405,
      headers: { Allow: "POST" },
    });
  }
  const refused = rebindingRefusal(c);
  if (refused !== undefined) return refused;
  const read = await readMessage(request);
  if (!read.ok) return refusedAtDoor(c, ref, read.error);
  const message = read.value;
  // The edge guard counted this HTTP request once; each further message of a batch is a
  // request of its own to the key's limit.
  const limited = await spendRequests(c, message.count - 1);
  if (limited !== undefined) return limited;
  const ctx = contextOf(c, ref, message);
  // The SDK is handed the strict reading; it never parses the body itself.
  const { parsed: parsedBody } = message;
  if (await isLegacyRequest(request, parsedBody)) {
    // SSE for a call of an MCP upstream's tool, so its progress and log messages reach the
    // client before the result; JSON for everything else.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !callsRelayingTool(parsedBody, ctx.tools),
    });
    await fenceServer(ctx, "2025").connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }
  const authInfo = { token: "", clientId: ref.by ?? "", scopes: [], extra: { [CONTEXT]: ctx } };
  return modernLeg().fetch(request, { authInfo, parsedBody });
}
