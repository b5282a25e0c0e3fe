import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpContent } from "./mcp-content.ts";

/**
 * get-resource-reference of the MCP server at http://127.0.0.1:38311/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
 */
export const everythingGetResourceReference = {
  name: "everything_get_resource_reference",
  version: "de4d61412829",
  description: "Returns a resource reference that can be used by MCP clients",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    resourceType: v.optional(v.picklist(["Text", "Blob"])),
    resourceId: v.optional(v.pipe(v.number(), v.description("ID of the text resource to fetch"))),
  }),
  output: v.strictObject({
    content: v.array(McpContent),
  }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: { resourceId: 1 },
    result: {
      content: [
        { type: "text", text: "Returning resource reference for Resource 1:" },
        {
          type: "resource",
          resource: {
            uri: "demo://resource/dynamic/text/1",
            mimeType: "text/plain",
            text: "Resource 1",
          },
        },
      ],
    },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_EVERYTHING_URL" },
    tool: "get-resource-reference",
    pinned: {
      source: "http://127.0.0.1:38311/mcp",
      sha256: "de4d614128298868748e8b5493053a803162dab631ba95d026ef1f3859b223a0",
      schema: {
        description: "Returns a resource reference that can be used by MCP clients",
        inputSchema: {
          type: "object",
          properties: {
            resourceType: {
              default: "Text",
              type: "string",
              enum: ["Text", "Blob"],
            },
            resourceId: {
              default: 1,
              description: "ID of the text resource to fetch",
              type: "number",
            },
          },
          $schema: "http://json-schema.org/draft-07/schema#",
        },
      },
    },
  },
} satisfies ToolContract;
