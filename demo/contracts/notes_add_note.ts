import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./notes_add_note.pin.json" with { type: "json" };

/**
 * A tool of an OAuth-protected MCP server, imported with `npm run contracts -- import --auth
 * oauth`: the note is written as the principal who makes the call, with their own tokens
 * (docs/mcp-upstreams.md, "OAuth-protected MCP servers"). Needs `MCP_NOTES_URL`,
 * `CONNECTION_KEYS` and `CONSOLE_SECRET`.
 */
export const notesAddNote = {
  name: "notes_add_note",
  version: "b380b232f2a8",
  description: "Add a note, written by the person the server was called as.",
  // The server's readOnlyHint is false: a hint, so confirm it before trusting it.
  effect: "mutate",
  paid: false,
  // Reviewed: a note only adds.
  destructive: false,
  input: v.strictObject({
    text: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description("The note")),
  }),
  // Reviewed: one text block, and the structured answer.
  output: v.strictObject({
    content: v.tuple([McpText]),
    structuredContent: v.strictObject({
      note_id: v.pipe(v.string(), v.maxLength(64)),
      author: v.pipe(v.string(), v.maxLength(256)),
      text: v.pipe(v.string(), v.maxLength(200)),
    }),
  }),
  timeoutMs: 5000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  example: {
    args: { text: "Standup moved to 10:00" },
    result: {
      content: [
        { type: "text", text: '{"note_id":"n-1","author":"ada","text":"Standup moved to 10:00"}' },
      ],
      structuredContent: { note_id: "n-1", author: "ada", text: "Standup moved to 10:00" },
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
