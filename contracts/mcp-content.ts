import * as v from "valibot";

/**
 * Content blocks of an MCP tool result (MCP 2025-11-25 `ContentBlock`), for the output
 * contracts of imported tools. Closed objects: a field the spec does not name is refused.
 * Every string and the list of blocks are bounded, so an imported tool's result has a size
 * the fence checks before it is stored, cached or handed to an agent. Tighten a tool's output
 * to the blocks it really returns (`v.tuple([McpText])` for one text block): an answer with
 * more blocks than the contract keeps is refused as `output_contract_violation`, never cut.
 */

/** Most characters of a text block's `text`, or an embedded resource's `text`. */
export const MAX_CONTENT_TEXT = 16_384;
/** Most characters of base64 `data` or `blob` (an image or audio clip of about 192 KiB). */
export const MAX_CONTENT_DATA = 262_144;
/** Most blocks in one result. */
export const MAX_CONTENT_BLOCKS = 32;

const Short = v.pipe(v.string(), v.maxLength(256));
const Uri = v.pipe(v.string(), v.maxLength(2048));
const Text = v.pipe(v.string(), v.maxLength(MAX_CONTENT_TEXT));
const Data = v.pipe(v.string(), v.maxLength(MAX_CONTENT_DATA));

const Optional = {
  annotations: v.optional(
    v.strictObject({
      audience: v.optional(v.pipe(v.array(v.picklist(["user", "assistant"])), v.maxLength(2))),
      priority: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
      lastModified: v.optional(Short),
    }),
  ),
};

export const McpText = v.strictObject({ type: v.literal("text"), text: Text, ...Optional });

const Media = (type: "image" | "audio") =>
  v.strictObject({ type: v.literal(type), data: Data, mimeType: Short, ...Optional });

const ResourceLink = v.strictObject({
  type: v.literal("resource_link"),
  uri: Uri,
  name: Short,
  title: v.optional(Short),
  description: v.optional(Text),
  mimeType: v.optional(Short),
  size: v.optional(v.number()),
  ...Optional,
});

const EmbeddedResource = v.strictObject({
  type: v.literal("resource"),
  resource: v.strictObject({
    uri: Uri,
    mimeType: v.optional(Short),
    text: v.optional(Text),
    blob: v.optional(Data),
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

/** The `content` of a result: at most MAX_CONTENT_BLOCKS bounded blocks. */
export const McpContentList = v.pipe(v.array(McpContent), v.maxLength(MAX_CONTENT_BLOCKS));
