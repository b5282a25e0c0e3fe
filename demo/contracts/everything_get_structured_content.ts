import * as v from "valibot";
import { McpContentList } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./everything_get_structured_content.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
 */
export const everythingGetStructuredContent = {
  name: "everything_get_structured_content",
  version: "25c19d02fa11",
  description: "Returns structured content along with an output schema for client data validation",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    location: v.pipe(
      v.picklist(["New York", "Chicago", "Los Angeles"]),
      v.description("Choose city"),
    ),
  }),
  output: v.strictObject({
    content: McpContentList,
    structuredContent: v.strictObject({
      temperature: v.pipe(v.number(), v.description("Temperature in celsius")),
      conditions: v.pipe(v.string(), v.description("Weather conditions description")),
      humidity: v.pipe(v.number(), v.description("Humidity percentage")),
    }),
  }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: { location: "Chicago" },
    result: {
      content: [
        { type: "text", text: '{"temperature":36,"conditions":"Light rain","humidity":82}' },
      ],
      structuredContent: { temperature: 36, conditions: "Light rain", humidity: 82 },
    },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_EVERYTHING_URL" },
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
