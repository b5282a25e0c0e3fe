/**
 * `npm run contracts -- import --mcp <url> [--header "Name: value"] [--tools a,b] [--prefix p]
 *   [--url-var NAME | --binding NAME [--path /p]] [--secret NAME] [--out dir]`
 * `npm run contracts -- drift [--mcp <url>] [--header …] [--dir dir]`
 *
 * import: list an MCP server's tools and write one contract file per tool, its schema pinned.
 * drift: compare every pinned MCP contract (or those pinned from --mcp) with what its server
 * lists now; exit 1 on drift.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ToolContract } from "../src/core/contract.ts";
import { allTools } from "../src/execute/mcp-list.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";
import { type ImportOptions, renderContract } from "./lib/mcp/contract-file.ts";
import { drift, drifted, driftTable, pinnedTools } from "./lib/mcp/drift.ts";
import type { ListedTool } from "./lib/mcp/pin.ts";

const USAGE = `usage: npm run contracts -- import --mcp <url> [--header "Name: value"] [--tools a,b]
         [--prefix p] [--url-var NAME | --binding NAME [--path /p]] [--secret NAME] [--out contracts]
       npm run contracts -- drift [--mcp <url>] [--header "Name: value"] [--dir contracts]`;

const OPTIONS = {
  mcp: { type: "string" },
  header: { type: "string", multiple: true },
  tools: { type: "string" },
  prefix: { type: "string" },
  "url-var": { type: "string" },
  binding: { type: "string" },
  path: { type: "string" },
  secret: { type: "string" },
  out: { type: "string" },
  dir: { type: "string" },
} as const;

/** The command and its options; an unknown option stops with the usage (lib/cli.ts). */
function parseCommand(argv: string[]) {
  return parseCli({ args: argv, options: OPTIONS, allowPositionals: true }, USAGE);
}

type Flags = ReturnType<typeof parseCommand>["values"];

function headersOf(flags: Flags): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of flags.header ?? []) {
    const at = h.indexOf(":");
    if (at < 1) throw new Error(`--header "${h}" is not "Name: value"`);
    headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
  }
  return headers;
}

/** Every tool the server at `url` lists, following pagination. */
async function listTools(url: string, headers: Record<string, string>): Promise<ListedTool[]> {
  const client = new Client({ name: "toolfence-contracts", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  try {
    return await allTools(client);
  } finally {
    await client.close();
  }
}

function importOptions(url: string, flags: Flags, headers: Record<string, string>): ImportOptions {
  const binding = flags.binding;
  const endpoint =
    binding === undefined
      ? { urlVar: flags["url-var"] ?? "MCP_SERVER_URL" }
      : { binding, path: flags.path ?? new URL(url).pathname };
  const options: ImportOptions = { source: url, prefix: flags.prefix ?? "", endpoint };
  const [header, value] = Object.entries(headers)[0] ?? [];
  if (header !== undefined && value !== undefined) {
    const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
    const secret = flags.secret ?? "MCP_SERVER_TOKEN";
    options.auth = scheme === undefined ? { header, secret } : { header, secret, scheme };
  }
  return options;
}

async function runImport(flags: Flags): Promise<number> {
  const url = flags.mcp;
  if (url === undefined) return usage();
  const headers = headersOf(flags);
  const wanted = flags.tools?.split(",").map((t) => t.trim());
  const listed = await listTools(url, headers);
  const unknown = (wanted ?? []).filter((w) => !listed.some((t) => t.name === w));
  if (unknown.length > 0) {
    console.error(`the server lists no tool named ${unknown.join(", ")}`);
    return 1;
  }
  const tools = wanted === undefined ? listed : listed.filter((t) => wanted.includes(t.name));
  const out = flags.out ?? "contracts";
  mkdirSync(out, { recursive: true });
  const options = importOptions(url, flags, headers);
  let refused = 0;
  for (const tool of tools) {
    const rendered = renderContract(tool, options);
    if (!rendered.ok) {
      refused++;
      console.error(
        `refused ${tool.name}: its schema cannot be enforced strictly\n  ${rendered.problems.join("\n  ")}`,
      );
      continue;
    }
    const path = join(out, `${rendered.name}.ts`);
    writeFileSync(path, rendered.text);
    console.log(
      `wrote ${path} (${rendered.exportName}); list it in contracts/index.ts and policy allowed_tools`,
    );
  }
  return refused === 0 ? 0 : 1;
}

/** Every MCP contract exported by a module of `dir`. */
async function pinnedIn(dir: string): Promise<ReturnType<typeof pinnedTools>> {
  const names = readdirSync(dir).filter((n) => n.endsWith(".ts") && n !== "index.ts");
  const found: ToolContract[] = [];
  for (const name of names) {
    const exports = (await import(pathToFileURL(resolve(dir, name)).href)) as Record<
      string,
      unknown
    >;
    for (const value of Object.values(exports)) {
      if ((value as Partial<ToolContract>)?.upstream?.kind === "mcp")
        found.push(value as ToolContract);
    }
  }
  return pinnedTools(found);
}

async function runDrift(flags: Flags): Promise<number> {
  const only = flags.mcp;
  const pinned = (await pinnedIn(flags.dir ?? "contracts")).filter(
    (c) => only === undefined || c.upstream.pinned.source === only,
  );
  const bySource = new Map<string, typeof pinned>();
  // --mcp alone, with nothing pinned from it, still lists the server's tools as new.
  if (only !== undefined) bySource.set(only, []);
  for (const c of pinned) {
    const source = c.upstream.pinned.source;
    bySource.set(source, [...(bySource.get(source) ?? []), c]);
  }
  let anyDrift = false;
  for (const [source, tools] of bySource) {
    const rows = drift(tools, await listTools(source, headersOf(flags)));
    console.log(`${source}\n${driftTable(rows)}\n`);
    anyDrift ||= drifted(rows);
  }
  console.log(anyDrift ? "drift: a pinned tool changed or is gone" : "no drift");
  return anyDrift ? 1 : 0;
}

function usage(): number {
  console.error(USAGE);
  return USAGE_EXIT;
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values: flags } = parseCommand(argv);
  const [command, ...rest] = positionals;
  if (rest.length > 0) return usage();
  if (command === "import") return runImport(flags);
  if (command === "drift") return runDrift(flags);
  return usage();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`contracts: ${(e as Error).message}`);
    process.exit(1);
  },
);
