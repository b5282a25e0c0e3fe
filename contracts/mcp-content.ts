import * as v from "valibot";

/**
 * Content blocks of an MCP tool result (MCP 2025-11-25 `ContentBlock`), for the output
 * contracts of imported tools. Tighten a tool's output to the blocks it really returns.
 */
const Annotations = v.optional(v.record(v.string(), v.unknown()));

export const McpText = v.object({
  type: v.literal("text"),
  text: v.string(),
  annotations: Annotations,
});

export const McpContent = v.variant("type", [
  McpText,
  v.object({ type: v.literal("image"), data: v.string(), mimeType: v.string() }),
  v.object({ type: v.literal("audio"), data: v.string(), mimeType: v.string() }),
  v.object({ type: v.literal("resource_link"), uri: v.string(), name: v.string() }),
  v.object({ type: v.literal("resource"), resource: v.object({ uri: v.string() }) }),
]);
