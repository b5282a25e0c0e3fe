/**
 * What is pinned of an upstream MCP tool: its description and schemas as the server lists
 * them, and a SHA-256 of their RFC 8785 form, so any change on the server changes the hash.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import canonicalize from "canonicalize";
import * as v from "valibot";

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

/** What `<name>.pin.json` beside an imported contract holds. */
const PinFile = v.strictObject({
  tool: v.pipe(v.string(), v.minLength(1)),
  source: v.pipe(v.string(), v.url()),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  schema: v.unknown(),
  /** What the listing scan found when the tool was imported (src/core/guardrails/listing-scan.ts). */
  findings: v.optional(
    v.array(v.strictObject({ kind: v.string(), at: v.string(), what: v.string() })),
  ),
});

/** A pin as drift compares it: the fence's name for the tool and what the import saw. */
export interface Pin extends v.InferOutput<typeof PinFile> {
  /** The fence's name for the tool: the pin file's name. */
  name: string;
}

/** The suffix of pin files. */
const PIN_SUFFIX = ".pin.json";

/**
 * Every pin in `dir`, read as JSON data: nothing in the folder is imported or run, so a
 * contract file's code never executes to compare a pin. A file that is not a pin throws.
 */
export function readPins(dir: string): Pin[] {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(PIN_SUFFIX))
    .sort();
  return names.map((file) => {
    const parsed = v.safeParse(PinFile, JSON.parse(readFileSync(join(dir, file), "utf8")));
    if (!parsed.success) {
      const issue = parsed.issues[0];
      throw new Error(
        `${join(dir, file)} is not a pin: ${v.getDotPath(issue) ?? ""} ${issue.message}`,
      );
    }
    return { name: file.slice(0, -PIN_SUFFIX.length), ...parsed.output };
  });
}
