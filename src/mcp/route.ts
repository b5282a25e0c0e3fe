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
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  type McpHttpHandler,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { canonicalize, sha256Hex } from "../core/canonical.ts";
import { approvalRulesOf, toolsFor } from "../core/policy.ts";
import { err, ok } from "../core/result.ts";
import { decide } from "../http/calls.ts";
import type { AppContext } from "../http/context.ts";
import { spendRequests } from "../http/guards.ts";
import { MAX_BODY_BYTES } from "../http/limits.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { type DoorRefusal, doorAnswer, type McpMessage, readMessage } from "./door.ts";
import { fenceServer, type McpCallContext } from "./server.ts";

/** Where the per-request context rides through the SDK's handler (`authInfo.extra`). */
const CONTEXT = "toolfence";

let modern: McpHttpHandler | undefined;

/**
 * The 2026-07-28 leg, built once per isolate on first use: it holds no session, only a
 * per-request factory.
 */
function modernLeg(): McpHttpHandler {
  modern ??= createMcpHandler(
    (ctx) => fenceServer(ctx.authInfo?.extra?.[CONTEXT] as McpCallContext),
    { legacy: "reject", responseMode: "json", maxRequestBodySize: MAX_BODY_BYTES },
  );
  return modern;
}

/**
 * The idempotency key of a mutation the client sent without one: the same run, tool and
 * RFC 8785 arguments give the same key, so an identical mutation repeated in a run is
 * replayed, never applied twice. Null when the arguments cannot be canonicalized (the gate
 * then refuses them).
 */
export async function derivedKey(
  runId: string,
  tool: string,
  args: unknown,
): Promise<string | null> {
  try {
    return `mcp:${await sha256Hex(canonicalize({ run: runId, tool, args }))}`;
  } catch {
    return null;
  }
}

function contextOf(c: AppContext, ref: RunRef, message: McpMessage): McpCallContext {
  const fence = c.get("fence");
  return {
    tools: toolsFor(fence, c.get("principal").tools),
    approvable: (name) => approvalRulesOf(fence, name).length > 0,
    exists: (name) => fence.tools.has(name),
    propose: async (name, args, key, id) => {
      const mutates = fence.tools.get(name)?.effect === "mutate";
      const idempotencyKey =
        key !== undefined ? key : mutates ? await derivedKey(ref.runId, name, args) : null;
      const call = {
        tool: name,
        args,
        ...(idempotencyKey === null ? {} : { idempotency_key: idempotencyKey }),
      };
      return decide(c, ref, {
        contentType: "application/json",
        body: ok(JSON.stringify(call)),
        headerKey: null,
        form: "mcp",
        received: message.received(id),
      });
    },
  };
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
 * DNS-rebinding defence (MCP transport spec, "Security Warning"): a browser's `Origin` must be
 * the fence's own host; under local development the Host must be a loopback name too.
 */
function rebindingRefusal(c: AppContext): Response | undefined {
  const request = c.req.raw;
  const own = new URL(c.req.url).hostname;
  const local = c.get("local");
  const hosts = local ? localhostAllowedHostnames() : [own];
  return (
    (local ? hostHeaderValidationResponse(request, hosts) : undefined) ??
    originValidationResponse(request, [own, ...hosts])
  );
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
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await fenceServer(ctx).connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }
  const authInfo = { token: "", clientId: ref.by ?? "", scopes: [], extra: { [CONTEXT]: ctx } };
  return modernLeg().fetch(request, { authInfo, parsedBody });
}
