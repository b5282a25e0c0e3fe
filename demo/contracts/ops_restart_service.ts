import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./ops_restart_service.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
 */
export const opsRestartService = {
  name: "ops_restart_service",
  version: "4c09515ba2aa",
  description: "Rolling restart of one service's pods.",
  // Reviewed: it restarts pods, so a mutation: it needs a key and spends the run's budget.
  effect: "mutate",
  paid: false,
  input: v.strictObject({
    service: v.pipe(
      v.string(),
      v.regex(/^[a-z0-9-]{1,63}$/),
      v.description("Kubernetes service name: lowercase letters, digits and dashes"),
    ),
    reason: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  }),
  // Reviewed: the server answers with one line naming the restart.
  output: v.strictObject({ content: v.tuple([McpText]) }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: { service: "checkout", reason: "stuck worker pool" },
    result: { content: [{ type: "text", text: "restart rs-1-checkout of checkout started" }] },
  },
  upstream: {
    kind: "mcp",
    endpoint: { binding: "DEMO", path: "/mcp" },
    tool: pin.tool,
    pinned: pin,
    // Reviewed: the server starts one restart per `_meta` idempotency key (demo/upstreams/ops-mcp.ts).
    idempotent: true,
  },
} satisfies ToolContract;
