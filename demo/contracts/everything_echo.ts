import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./everything_echo.pin.json" with { type: "json" };

/**
 * A tool of an MCP server, imported by `npm run contracts -- import`: `upstream.tool` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares the pin with what the server lists now.
 */
export const everythingEcho = {
  name: "everything_echo",
  version: "282555f91c36",
  description: "Echoes back the input string",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    // Reviewed: a bound the server does not state.
    message: v.pipe(v.string(), v.maxLength(500), v.description("Message to echo")),
  }),
  // Reviewed: one line of text, which is what an agent reading the result is promised.
  output: v.strictObject({
    content: v.tuple([
      v.strictObject({ ...McpText.entries, text: v.pipe(v.string(), v.regex(/^Echo: [^\r\n]*$/)) }),
    ]),
  }),
  timeoutMs: 5000,
  // Reviewed: the answer depends on the arguments alone.
  cacheTtlSeconds: 60,
  sharedCache: false,
  example: {
    args: { message: "hello" },
    result: { content: [{ type: "text", text: "Echo: hello" }] },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_EVERYTHING_URL" },
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
