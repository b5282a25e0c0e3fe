import * as v from "valibot";
import { McpContentList } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./ops_service_status.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
 */
export const opsServiceStatus = {
  name: "ops_service_status",
  version: "fab397a23952",
  description: "Health, replica count and deployed version of one service.",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    service: v.pipe(
      v.string(),
      v.regex(/^[a-z0-9-]{1,63}$/),
      v.description("Kubernetes service name: lowercase letters, digits and dashes"),
    ),
  }),
  output: v.strictObject({
    content: McpContentList,
    structuredContent: v.strictObject({
      service: v.string(),
      healthy: v.boolean(),
      replicas: v.pipe(v.number(), v.integer(), v.minValue(0)),
      version: v.string(),
    }),
  }),
  timeoutMs: 5000,
  // Reviewed: a status a few seconds old is good enough for an agent deciding what to do.
  cacheTtlSeconds: 15,
  sharedCache: false,
  example: {
    args: { service: "checkout" },
    result: {
      content: [
        {
          type: "text",
          text: '{"service":"checkout","healthy":true,"replicas":3,"version":"1.4.2"}',
        },
      ],
      structuredContent: { service: "checkout", healthy: true, replicas: 3, version: "1.4.2" },
    },
  },
  upstream: {
    kind: "mcp",
    endpoint: { binding: "DEMO", path: "/mcp" },
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
