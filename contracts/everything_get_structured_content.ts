import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpContent } from "./mcp-content.ts";

/**
 * get-structured-content of the MCP server at http://127.0.0.1:38311/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
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
    content: v.array(McpContent),
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
    tool: "get-structured-content",
    pinned: {
      source: "http://127.0.0.1:38311/mcp",
      sha256: "25c19d02fa1148cfc6c0394f08b4ba161aa78750ed323a4f0616704fa298b799",
      schema: {
        description:
          "Returns structured content along with an output schema for client data validation",
        inputSchema: {
          type: "object",
          properties: {
            location: {
              type: "string",
              enum: ["New York", "Chicago", "Los Angeles"],
              description: "Choose city",
            },
          },
          required: ["location"],
          $schema: "http://json-schema.org/draft-07/schema#",
        },
        outputSchema: {
          type: "object",
          properties: {
            temperature: {
              type: "number",
              description: "Temperature in celsius",
            },
            conditions: {
              type: "string",
              description: "Weather conditions description",
            },
            humidity: {
              type: "number",
              description: "Humidity percentage",
            },
          },
          required: ["temperature", "conditions", "humidity"],
          $schema: "http://json-schema.org/draft-07/schema#",
          additionalProperties: false,
        },
      },
    },
  },
} satisfies ToolContract;
