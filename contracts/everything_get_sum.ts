import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpText } from "./mcp-content.ts";

/**
 * get-sum of the MCP server at http://127.0.0.1:38311/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
 */
export const everythingGetSum = {
  name: "everything_get_sum",
  version: "69436cac2391",
  description: "Returns the sum of two numbers",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    a: v.pipe(v.number(), v.description("First number")),
    b: v.pipe(v.number(), v.description("Second number")),
  }),
  // Reviewed: the tool answers with one text block.
  output: v.strictObject({ content: v.tuple([McpText]) }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: { a: 1, b: 2 },
    result: { content: [{ type: "text", text: "The sum of 1 and 2 is 3." }] },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_EVERYTHING_URL" },
    tool: "get-sum",
    pinned: {
      source: "http://127.0.0.1:38311/mcp",
      sha256: "69436cac239174dbaccd0db5b64b0cf693276570c99931776b421b326dc140e2",
      schema: {
        description: "Returns the sum of two numbers",
        inputSchema: {
          type: "object",
          properties: {
            a: {
              type: "number",
              description: "First number",
            },
            b: {
              type: "number",
              description: "Second number",
            },
          },
          required: ["a", "b"],
          $schema: "http://json-schema.org/draft-07/schema#",
        },
      },
    },
  },
} satisfies ToolContract;
