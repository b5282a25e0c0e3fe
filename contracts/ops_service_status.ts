import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpContent } from "./mcp-content.ts";

/**
 * service_status of the MCP server at http://127.0.0.1:8830/demo/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
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
    content: v.array(McpContent),
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
    tool: "service_status",
    pinned: {
      source: "http://127.0.0.1:8830/demo/mcp",
      sha256: "fab397a23952c34624f0524e38e54d01983428a6dc0f0667a3af8dd394227f3b",
      schema: {
        description: "Health, replica count and deployed version of one service.",
        inputSchema: {
          type: "object",
          properties: {
            service: {
              type: "string",
              pattern: "^[a-z0-9-]{1,63}$",
              description: "Kubernetes service name: lowercase letters, digits and dashes",
            },
          },
          required: ["service"],
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: {
            service: {
              type: "string",
            },
            healthy: {
              type: "boolean",
            },
            replicas: {
              type: "integer",
              minimum: 0,
            },
            version: {
              type: "string",
            },
          },
          required: ["service", "healthy", "replicas", "version"],
          additionalProperties: false,
        },
      },
    },
  },
} satisfies ToolContract;
