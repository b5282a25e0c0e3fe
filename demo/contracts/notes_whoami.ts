import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./notes_whoami.pin.json" with { type: "json" };

/**
 * A tool of an OAuth-protected MCP server, imported with `npm run contracts -- import --auth
 * oauth`: the server is called as the principal who makes the call, with their own tokens
 * (docs/mcp-upstreams.md, "OAuth-protected MCP servers"). It says whose token it was called
 * with. Needs `MCP_NOTES_URL`, `CONNECTION_KEYS` and `CONSOLE_SECRET`.
 */
export const notesWhoami = {
  name: "notes_whoami",
  version: "7731998c832a",
  description: "Who the server was called as: the subject, client and scope of the token.",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({}),
  // Reviewed: one text block, and the structured answer.
  output: v.strictObject({
    content: v.tuple([McpText]),
    structuredContent: v.strictObject({
      subject: v.pipe(v.string(), v.maxLength(256)),
      client_id: v.pipe(v.string(), v.maxLength(256)),
      scope: v.pipe(v.string(), v.maxLength(256)),
      token_id: v.pipe(v.string(), v.maxLength(256)),
    }),
  }),
  timeoutMs: 5000,
  // Called as the principal: its answers are the person's own, never cached.
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: {},
    result: {
      content: [
        {
          type: "text",
          text: '{"subject":"ada","client_id":"c-1","scope":"notes","token_id":"t-1"}',
        },
      ],
      structuredContent: { subject: "ada", client_id: "c-1", scope: "notes", token_id: "t-1" },
    },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_NOTES_URL" },
    tool: pin.tool,
    auth: { kind: "oauth", as: "principal" },
    pinned: pin,
  },
} satisfies ToolContract;
