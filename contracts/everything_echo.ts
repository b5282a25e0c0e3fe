import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpText } from "./mcp-content.ts";

/**
 * echo of the MCP server at http://127.0.0.1:38311/mcp, imported by
 * `npm run contracts -- import`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * `npm run contracts -- drift` compares `pinned.sha256` with what the server lists.
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
    tool: "echo",
    pinned: {
      source: "http://127.0.0.1:38311/mcp",
      sha256: "282555f91c362747acb98755521a3163122618a9847e0c7390f13100366ce09b",
      schema: {
        description: "Echoes back the input string",
        inputSchema: {
          type: "object",
          properties: {
            message: {
              type: "string",
              description: "Message to echo",
            },
          },
          required: ["message"],
          $schema: "http://json-schema.org/draft-07/schema#",
        },
      },
    },
  },
} satisfies ToolContract;
