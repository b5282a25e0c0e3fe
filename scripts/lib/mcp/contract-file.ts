/**
 * The text of one imported contract file: readable valibot a reviewer tightens, and beside
 * it the pin as JSON: the upstream's source URL, remote tool name, schema and its hash.
 */

import { relative, resolve, sep } from "node:path";
import type { ListingFinding } from "../../../src/core/guardrails/listing-scan.ts";
import { literal } from "./literal.ts";
import { type ListedTool, pinnedSchema, schemaHash } from "./pin.ts";
import { schemaCode, usesKeywordChecks } from "./schema-code.ts";

/** How an imported tool is reached and named in the fence. */
export interface ImportOptions {
  /** The server URL the tools were listed from. */
  source: string;
  /** Prefix of the fence's tool names, e.g. `everything_`. */
  prefix: string;
  /** Endpoint code: a variable holding the URL, or a service binding and the URL's path. */
  endpoint: { urlVar: string } | { binding: string; path: string };
  /**
   * Worker secret sent as a header, when the server needs credentials; or `oauth`: the server
   * is called as the principal, with their own tokens (src/core/principal-auth.ts).
   */
  auth?: { header: string; secret: string; scheme?: string } | "oauth";
  /** What the listing scan found in the tool, pinned with it; none if absent. */
  findings?: readonly ListingFinding[];
  /**
   * Where the file imports the fence's modules from, relative to the folder it is written to
   * (`importsFrom`); those of the default folder, `contracts/`, if absent.
   */
  imports?: ContractImports;
}

/** The module specifiers of an imported contract file's imports of the fence's own code. */
export interface ContractImports {
  /** Of `src/core/contract.ts`. */
  contract: string;
  /** Of `contracts/mcp-content.ts`. */
  content: string;
  /** Of `contracts/json-schema.ts`, which a contract imports when its input needs checks. */
  jsonSchema: string;
}

/** The imports of a file written to `contracts/`. */
const CONTRACTS_FOLDER: ContractImports = {
  contract: "../src/core/contract.ts",
  content: "./mcp-content.ts",
  jsonSchema: "./json-schema.ts",
};

/**
 * The imports of a file written to `folder`, for a project at `root`: relative specifiers
 * with `/` whatever the platform, and `./` before one that does not climb (an ES module
 * specifier without it would name a package).
 */
export function importsFrom(folder: string, root: string): ContractImports {
  const from = (file: string) => {
    const path = relative(resolve(folder), resolve(root, file)).split(sep).join("/");
    return path.startsWith("../") ? path : `./${path}`;
  };
  return {
    contract: from("src/core/contract.ts"),
    content: from("contracts/mcp-content.ts"),
    jsonSchema: from("contracts/json-schema.ts"),
  };
}

/** A rendered contract file and its pin, or why the tool cannot be imported strictly. */
export type Rendered =
  | { ok: true; name: string; exportName: string; text: string; pin: string }
  | { ok: false; name: string; problems: string[] };

/**
 * A server's name for a tool the import accepts: the characters MCP allows in tool names
 * (2025-11-25, "Tool names"), 1 to 128 of them. Anything else is refused, not rewritten.
 */
export const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The fence's tool names, as API keys' tool lists spell them (src/core/keys.ts). */
export const FENCE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The fence's name for a remote tool: the prefix, then lower-case letters, digits and `_`. */
export function fenceName(prefix: string, remote: string): string {
  return `${prefix}${remote}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

/** The file beside a contract that holds its pin, as data (`drift` reads only these). */
export function pinFile(name: string): string {
  return `${name}.pin.json`;
}

function camel(name: string): string {
  return name.replace(/_+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

/** Why a tool's names cannot be used, or nothing. */
function nameProblems(remote: string, name: string): string[] {
  if (!REMOTE_NAME.test(remote)) {
    return [`the server's name for it is not 1 to 128 of A-Z a-z 0-9 _ - .: ${literal(remote)}`];
  }
  if (!FENCE_NAME.test(name)) {
    return [`its name in the fence, ${name}, is not a letter then up to 63 of a-z 0-9 _`];
  }
  return [];
}

/** Render the contract file of `tool` and its pin. */
export function renderContract(tool: ListedTool, options: ImportOptions): Rendered {
  const remote = String(tool.name);
  const name = fenceName(options.prefix, remote);
  const refusedName = nameProblems(remote, name);
  // The message names the tool only as a literal: a hostile name never reaches a terminal raw.
  if (refusedName.length > 0) return { ok: false, name: literal(remote), problems: refusedName };
  const input = schemaCode(tool.inputSchema, `${name}.inputSchema`);
  const output =
    tool.outputSchema === undefined ? null : schemaCode(tool.outputSchema, `${name}.outputSchema`);
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
  const imports = options.imports ?? CONTRACTS_FOLDER;
  const checks = usesKeywordChecks(`${input.code}\n${output?.ok ? output.code : ""}`)
    ? `import { keywordCheck } from ${literal(imports.jsonSchema)};
`
    : "";
  const text = `import * as v from "valibot";
import type { ToolContract } from ${literal(imports.contract)};
${checks}import { McpContentList } from ${literal(imports.content)};
import pin from "./${pinFile(name)}" with { type: "json" };

/**
 * A tool of an MCP server, imported by \`npm run contracts -- import\`: \`upstream.tool\` is
 * the server's name for it, and the pin beside this file what the server listed (source URL,
 * schema, hash). Review before committing: tighten strings (patterns, enums), numbers
 * (bounds) and the output's content blocks to what the tool needs.
 * \`npm run contracts -- drift\` compares the pin with what the server lists now.
 */
export const ${exportName} = {
  name: ${literal(name)},
  version: ${literal(sha256.slice(0, 12))},
  description: ${literal(tool.description ?? remote)},
  // The server's readOnlyHint is ${readOnly}: a hint, so confirm it before trusting it.
  effect: ${literal(readOnly ? "read" : "mutate")},
  paid: false,
  input: ${indent(input.ok ? input.code : "", 2)},
  // Bounded content blocks (contracts/mcp-content.ts): tighten them to what the tool returns.
  // An answer with more blocks than a tightened tuple names is refused, never cut.
  output: v.strictObject({
    content: McpContentList${structured},
  }),
  timeoutMs: 5000,
  // Seconds a read's result may be served from the cache; 0 until a reviewer decides.
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "mcp",
    endpoint: ${endpointCode(options.endpoint)},
    tool: pin.tool,${authLine(options.auth)}
    pinned: pin,
  },
} satisfies ToolContract;
`;
  const found = options.findings ?? [];
  const pinned = {
    tool: remote,
    source: options.source,
    sha256,
    schema,
    ...(found.length === 0 ? {} : { findings: found }),
  };
  return { ok: true, name, exportName, text, pin: `${JSON.stringify(pinned, null, 2)}\n` };
}

function endpointCode(endpoint: ImportOptions["endpoint"]): string {
  return "urlVar" in endpoint
    ? `{ urlVar: ${literal(endpoint.urlVar)} }`
    : `{ binding: ${literal(endpoint.binding)}, path: ${literal(endpoint.path)} }`;
}

function authLine(auth: ImportOptions["auth"]): string {
  if (auth === undefined) return "";
  // The server answered 401 with its OAuth metadata: each caller connects as themselves.
  if (auth === "oauth") return `\n    auth: { kind: "oauth", as: "principal" },`;
  const scheme = auth.scheme === undefined ? "" : `, scheme: ${literal(auth.scheme)}`;
  return `\n    auth: { header: ${literal(auth.header)}, secret: ${literal(auth.secret)}${scheme} },`;
}

function indent(code: string, spaces: number): string {
  return code.replaceAll("\n", `\n${" ".repeat(spaces)}`);
}
