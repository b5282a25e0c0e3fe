/**
 * The text of one imported contract file: readable valibot a reviewer tightens, with the
 * upstream's source URL, remote tool name, schema and its hash pinned next to the code.
 */
import { type ListedTool, pinnedSchema, schemaHash } from "./pin.ts";
import { schemaCode } from "./schema-code.ts";

/** How an imported tool is reached and named in the fence. */
export interface ImportOptions {
  /** The server URL the tools were listed from. */
  source: string;
  /** Prefix of the fence's tool names, e.g. `everything_`. */
  prefix: string;
  /** Endpoint code: a variable holding the URL, or a service binding and the URL's path. */
  endpoint: { urlVar: string } | { binding: string; path: string };
  /** Worker secret sent as a header, when the server needs credentials. */
  auth?: { header: string; secret: string; scheme?: string };
}

/** A rendered contract file, or why the tool cannot be imported strictly. */
export type Rendered =
  | { ok: true; name: string; exportName: string; text: string }
  | { ok: false; name: string; problems: string[] };

/** The fence's name for a remote tool: the prefix, then letters, digits and underscores. */
export function fenceName(prefix: string, remote: string): string {
  return `${prefix}${remote}`.replace(/[^A-Za-z0-9_]/g, "_");
}

function camel(name: string): string {
  return name.replace(/_+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

/** Render the contract file of `tool`. */
export function renderContract(tool: ListedTool, options: ImportOptions): Rendered {
  const name = fenceName(options.prefix, tool.name);
  const input = schemaCode(tool.inputSchema, `${tool.name}.inputSchema`);
  const output =
    tool.outputSchema === undefined
      ? null
      : schemaCode(tool.outputSchema, `${tool.name}.outputSchema`);
  const problems = [
    ...(input.ok ? [] : input.problems),
    ...(output && !output.ok ? output.problems : []),
  ];
  if (!input.ok || (output !== null && !output.ok)) return { ok: false, name, problems };
  const schema = pinnedSchema(tool);
  const sha256 = schemaHash(schema);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const structured = output === null ? "" : `,\n    structuredContent: ${indent(output.code, 4)}`;
  const exportName = camel(name);
  const text = `import * as v from "valibot";
import type { ToolContract } from "../src/core/contract.ts";
import { McpContent } from "./mcp-content.ts";

/**
 * ${tool.name} of the MCP server at ${options.source}, imported by
 * \`npm run contracts -- import\`. Review before committing: tighten strings (patterns,
 * enums), numbers (bounds) and the output's content blocks to what the tool needs.
 * \`npm run contracts -- drift\` compares \`pinned.sha256\` with what the server lists.
 */
export const ${exportName} = {
  name: ${JSON.stringify(name)},
  version: ${JSON.stringify(sha256.slice(0, 12))},
  description: ${JSON.stringify(tool.description ?? tool.name)},
  // The server's readOnlyHint is ${readOnly}: a hint, so confirm it before trusting it.
  effect: ${JSON.stringify(readOnly ? "read" : "mutate")},
  paid: false,
  input: ${indent(input.ok ? input.code : "", 2)},
  output: v.strictObject({
    content: v.array(McpContent)${structured},
  }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "mcp",
    endpoint: ${JSON.stringify(options.endpoint).replace(/"(\w+)":/g, "$1: ")},
    tool: ${JSON.stringify(tool.name)},${authLine(options.auth)}
    pinned: {
      source: ${JSON.stringify(options.source)},
      sha256: ${JSON.stringify(sha256)},
      schema: ${indent(JSON.stringify(schema, null, 2), 6)},
    },
  },
} satisfies ToolContract;
`;
  return { ok: true, name, exportName, text };
}

function authLine(auth: ImportOptions["auth"]): string {
  return auth === undefined
    ? ""
    : `\n    auth: ${JSON.stringify(auth).replace(/"(\w+)":/g, "$1: ")},`;
}

function indent(code: string, spaces: number): string {
  return code.replaceAll("\n", `\n${" ".repeat(spaces)}`);
}
