/**
 * What is pinned of an upstream MCP tool: its description and schemas as the server lists
 * them, and a SHA-256 of their RFC 8785 form, so any change on the server changes the hash.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** A tool as `tools/list` returns it (the parts the fence pins). */
export interface ListedTool {
  /** The server's name for the tool. */
  name: string;
  /** Its description, if any. */
  description?: string | undefined;
  /** JSON Schema of the arguments. */
  inputSchema: unknown;
  /** JSON Schema of `structuredContent`, if the tool declares one. */
  outputSchema?: unknown;
  /** Behaviour hints (readOnlyHint, destructiveHint, …). */
  annotations?: Record<string, unknown> | undefined;
}

/** The pinned view of a tool: what a change of the tool on the server shows up in. */
export function pinnedSchema(tool: ListedTool): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
  };
  if (tool.outputSchema !== undefined) schema.outputSchema = tool.outputSchema;
  return schema;
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of `schema`. */
export function schemaHash(schema: unknown): string {
  const text = canonicalize(schema);
  if (text === undefined) throw new TypeError("schema has no JSON form");
  return createHash("sha256").update(text).digest("hex");
}
