/**
 * The fence's contracts as MCP tools (`tools/list`): the same JSON Schema as `GET /v1/tools`
 * (draft 2020-12, generated from the valibot schemas the gate runs), with the hints MCP
 * clients read (annotations) derived from each contract.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { catalogue } from "../core/catalogue.ts";
import type { ToolContract } from "../core/contract.ts";

/** One entry of the JSON catalogue, as `GET /v1/tools` publishes it. */
interface CatalogueEntry {
  name: string;
  input_schema: Tool["inputSchema"];
  output_schema: NonNullable<Tool["outputSchema"]>;
}

/** `create_ticket` → `Create ticket`. */
function titleOf(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * MCP tool annotations (hints to the client). Every call the fence runs is idempotent by its
 * key: a repeated read is the cache's, a repeated mutation is replayed.
 */
function annotationsOf(c: ToolContract): NonNullable<Tool["annotations"]> {
  return {
    title: titleOf(c.name),
    readOnlyHint: c.effect === "read",
    destructiveHint: c.effect === "mutate" && (c.destructive ?? true),
    idempotentHint: true,
    openWorldHint: c.upstream.kind !== "inline",
  };
}

/** The `tools/list` result for the contracts a caller may use. */
export function mcpTools(contracts: readonly ToolContract[]): Tool[] {
  const { tools } = catalogue(contracts, "json") as { tools: CatalogueEntry[] };
  return contracts.map((c, i) => {
    const entry = tools[i] as CatalogueEntry;
    return {
      name: c.name,
      title: titleOf(c.name),
      description: c.description,
      inputSchema: entry.input_schema,
      outputSchema: entry.output_schema,
      annotations: annotationsOf(c),
    };
  });
}
