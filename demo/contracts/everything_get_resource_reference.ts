import * as v from "valibot";
import { McpContentList } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./everything_get_resource_reference.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
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
    content: McpContentList,
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
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
