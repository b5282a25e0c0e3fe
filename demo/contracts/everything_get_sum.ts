import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./everything_get_sum.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
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
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
