import * as v from "valibot";
import { McpText } from "../../contracts/mcp-content.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import pin from "./kb_search.pin.json" with { type: "json" };

/**
 * A tool of a vendor's MCP server the operator does not control: its passages are data from
 * outside, so its result rules redact personal data as well as secrets, and cut a passage
 * longer than an agent needs. Needs `MCP_KB_URL`.
 */
export const kbSearch = {
  name: "kb_search",
  version: "50a2cc1c8a88",
  description: "Search the vendor knowledge base; returns matching passages.",
  // The server's readOnlyHint is true: a hint, so confirm it before trusting it.
  effect: "read",
  paid: false,
  input: v.strictObject({
    query: v.pipe(v.string(), v.maxLength(200), v.description("What to look for")),
  }),
  output: v.strictObject({ content: v.tuple([McpText]) }),
  timeoutMs: 5000,
  cacheTtlSeconds: 60,
  sharedCache: false,
  results: {
    email: "redact",
    phone: "redact",
    oversized_field: { action: "redact", max_bytes: 4096 },
  },
  example: {
    args: { query: "reset the router" },
    result: { content: [{ type: "text", text: "Reset the router, then wait a minute." }] },
  },
  upstream: {
    kind: "mcp",
    endpoint: { urlVar: "MCP_KB_URL" },
    tool: pin.tool,
    pinned: pin,
  },
} satisfies ToolContract;
