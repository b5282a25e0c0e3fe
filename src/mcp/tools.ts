/**
 * The fence's contracts as MCP tools (`tools/list`): the same JSON Schema as `GET /v1/tools`
 * (draft 2020-12, generated from the valibot schemas the gate runs), with the hints MCP
 * clients read (annotations) derived from each contract.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { catalogue } from "../core/catalogue.ts";
import type { ToolContract } from "../core/contract.ts";
import { relaysContent } from "./results.ts";

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

/**
 * What a tool call answers while it waits for a person (`needs_approval`): a non-error result,
 * so the model waits and asks again instead of re-planning. Clients validate a non-error
 * result's `structuredContent` against the tool's output schema, so a tool a policy rule may
 * send to a person publishes its output schema with this shape as a second branch.
 */
export const PENDING_SCHEMA = {
  type: "object",
  properties: {
    approval: {
      type: "object",
      properties: {
        status: { const: "pending" },
        approval_id: { type: "string" },
        rule: { type: "string" },
        expires_at: { type: "string", format: "date-time" },
        retry_after_s: { type: "integer", minimum: 0 },
      },
      required: ["status", "approval_id", "rule", "expires_at", "retry_after_s"],
      additionalProperties: false,
    },
  },
  required: ["approval"],
  additionalProperties: false,
} as const;

function outputSchemaOf(
  entry: CatalogueEntry,
  approvable: boolean,
  relay: boolean,
): Tool["outputSchema"] {
  const { $schema, ...result } = entry.output_schema as Record<string, unknown>;
  const dialect = $schema === undefined ? {} : { $schema };
  // A relayed tool's structured content is the upstream's, described by the `structuredContent`
  // of its output contract; without one it has no output schema, as the upstream lists none.
  const properties = result.properties as Record<string, Record<string, unknown>> | undefined;
  const structured = relay ? properties?.structuredContent : result;
  if (structured === undefined) return undefined;
  if (!approvable) return { ...dialect, ...structured } as NonNullable<Tool["outputSchema"]>;
  return {
    ...dialect,
    type: "object",
    anyOf: [structured, PENDING_SCHEMA],
  } as NonNullable<Tool["outputSchema"]>;
}

/**
 * The `tools/list` result for the contracts a caller may use; `approvable` says which tools a
 * policy rule may send to a person.
 */
export function mcpTools(
  contracts: readonly ToolContract[],
  approvable: (tool: string) => boolean = () => false,
): Tool[] {
  const { tools } = catalogue(contracts, "json") as { tools: CatalogueEntry[] };
  return contracts.map((c, i) => {
    const entry = tools[i] as CatalogueEntry;
    const output = outputSchemaOf(entry, approvable(c.name), relaysContent(c));
    return {
      name: c.name,
      title: titleOf(c.name),
      description: c.description,
      inputSchema: entry.input_schema,
      ...(output === undefined ? {} : { outputSchema: output }),
      annotations: annotationsOf(c),
    };
  });
}
