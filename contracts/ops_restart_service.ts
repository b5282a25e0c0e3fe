import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpText } from "./mcp-content.ts";

/**
 * restart_service of the MCP server at http://127.0.0.1:8830/demo/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
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
    tool: "restart_service",
    pinned: {
      source: "http://127.0.0.1:8830/demo/mcp",
      sha256: "4c09515ba2aa291c3c23bc67ab18312111f8ab237a3fe847953d9bca5f591cbc",
      schema: {
        description: "Rolling restart of one service's pods.",
        inputSchema: {
          type: "object",
          properties: {
            service: {
              type: "string",
              pattern: "^[a-z0-9-]{1,63}$",
              description: "Kubernetes service name: lowercase letters, digits and dashes",
            },
            reason: {
              type: "string",
              minLength: 1,
              maxLength: 200,
            },
          },
          required: ["service", "reason"],
          additionalProperties: false,
        },
      },
    },
  },
} satisfies ToolContract;
