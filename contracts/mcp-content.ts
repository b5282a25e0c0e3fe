import * as v from "valibot";

/**
 * Content blocks of an MCP tool result (MCP 2025-11-25 `ContentBlock`), for the output
 * contracts of imported tools. Closed objects: a field the spec does not name is refused.
 * Tighten a tool's output to the blocks it really returns.
 */
const Optional = {
  annotations: v.optional(
    v.strictObject({
      audience: v.optional(v.array(v.picklist(["user", "assistant"]))),
      priority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
      lastModified: v.optional(v.string()),
    }),
  ),
};

export const McpText = v.strictObject({ type: v.literal("text"), text: v.string(), ...Optional });

const Media = (type: "image" | "audio") =>
  v.strictObject({ type: v.literal(type), data: v.string(), mimeType: v.string(), ...Optional });

const ResourceLink = v.strictObject({
  type: v.literal("resource_link"),
  uri: v.string(),
  name: v.string(),
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(v.number()),
  ...Optional,
});

const EmbeddedResource = v.strictObject({
  type: v.literal("resource"),
  resource: v.strictObject({
    uri: v.string(),
    mimeType: v.optional(v.string()),
    text: v.optional(v.string()),
    blob: v.optional(v.string()),
  }),
  ...Optional,
});

export const McpContent = v.variant("type", [
  McpText,
  Media("image"),
  Media("audio"),
  ResourceLink,
  EmbeddedResource,
]);
