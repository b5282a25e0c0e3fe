/**
 * `npm run contracts -- import --mcp <url> [--header "Name: value"] [--auth oauth] [--tools a,b]
 *   [--prefix p] [--url-var NAME | --binding NAME [--path /p]] [--secret NAME] [--out dir]`
 * `npm run contracts -- import --openapi <file-or-url> [--operations a,b] [--prefix p]
 *   [--server https://base] [--out dir]`
 * `npm run contracts -- drift [--mcp <url>] [--header …] [--auth oauth] [--dir dir]`
 * `npm run contracts -- types [--dir contracts] [--out toolfence-tools.d.ts]`
 *
 * import: list an MCP server's tools and write one contract file per tool, and its pin as JSON.
 * Each tool's listing is scanned first (hidden characters, text addressed to the model, a name
 * imitating another tool's, an overlong description): a tool with a refusing finding is not
 * written unless --accept-findings; every finding is printed and pinned with the contract.
 * drift: compare every pin of the folder (or those pinned from --mcp) with what its server
 * lists now, reading the pins as data; exit 1 on drift, 3 when a server cannot be listed.
 * --auth oauth: the server is called as the principal (it answers 401 with its OAuth metadata);
 * its tools are listed with the token of `--header`, or after a person allows it in a browser
 * (lib/mcp/oauth-listing.ts), and the contracts say `auth: { kind: "oauth", as: "principal" }`.
 * types: write the declaration that types `toolfence/client` for the tools of the folder
 * (lib/client-types.ts), for a consumer project to keep beside its code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ToolContract } from "../src/core/contract.ts";
import {
  describeListingFinding,
  REFUSING,
  scanListedTool,
} from "../src/core/guardrails/listing-scan.ts";
import { allTools } from "../src/execute/mcp-list.ts";
import { parseCli, USAGE_EXIT } from "./lib/cli.ts";
import { clientTypes } from "./lib/client-types.ts";
import {
  type ImportOptions,
  importsFrom,
  pinFile,
  renderContract,
} from "./lib/mcp/contract-file.ts";
import { drift, drifted, driftTable } from "./lib/mcp/drift.ts";
import { asksForOAuth, listWithBrowser } from "./lib/mcp/oauth-listing.ts";
import { type ListedTool, type Pin, readPins } from "./lib/mcp/pin.ts";
import { importOpenApi } from "./lib/openapi/import.ts";
import { printable } from "./lib/printable.ts";

/** The project's root: the fence's modules an imported file needs are found from it. */
const ROOT = resolve(import.meta.dirname, "..");

/** The exit code when a server could not be listed: nothing was compared, which is not drift. */
const UNREACHABLE_EXIT = 3;

const USAGE = `usage: npm run contracts -- import --mcp <url> [--header "Name: value"] [--auth oauth]
         [--tools a,b] [--prefix p] [--url-var NAME | --binding NAME [--path /p]] [--secret NAME]
         [--out contracts] [--accept-findings]
       npm run contracts -- import --openapi <file-or-url> [--operations a,b] [--prefix p]
         [--server https://base] [--out contracts]
       npm run contracts -- drift [--mcp <url>] [--header "Name: value"] [--auth oauth]
         [--dir contracts]
       npm run contracts -- types [--dir contracts] [--out toolfence-tools.d.ts]`;

const OPTIONS = {
  mcp: { type: "string" },
  openapi: { type: "string" },
  operations: { type: "string" },
  server: { type: "string" },
  header: { type: "string", multiple: true },
  auth: { type: "string" },
  tools: { type: "string" },
  prefix: { type: "string" },
  "url-var": { type: "string" },
  binding: { type: "string" },
  path: { type: "string" },
  secret: { type: "string" },
  out: { type: "string" },
  dir: { type: "string" },
  "accept-findings": { type: "boolean" },
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

/** A server that could not be listed: unreachable, or it did not answer as MCP. */
class Unlisted extends Error {}

/**
 * Every tool the server at `url` lists, following pagination; with `oauth` and no token in
 * `headers`, after a person allowed the listing in a browser.
 */
async function listTools(
  url: string,
  headers: Record<string, string>,
  oauth = false,
): Promise<ListedTool[]> {
  const client = new Client({ name: "toolfence-contracts", version: "1" });
  try {
    if (oauth && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
      return await listWithBrowser(url, (line) => console.error(line));
    }
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
    );
    return await allTools(client);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new Unlisted(`cannot list the tools of the MCP server at ${url}: ${why}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function importOptions(url: string, flags: Flags, headers: Record<string, string>): ImportOptions {
  const binding = flags.binding;
  const endpoint =
    binding === undefined
      ? { urlVar: flags["url-var"] ?? "MCP_SERVER_URL" }
      : { binding, path: flags.path ?? new URL(url).pathname };
  const options: ImportOptions = { source: url, prefix: flags.prefix ?? "", endpoint };
  // Called as the principal: the header, if any, was only for listing; no secret is named.
  if (flags.auth === "oauth") return { ...options, auth: "oauth" };
  const [header, value] = Object.entries(headers)[0] ?? [];
  if (header !== undefined && value !== undefined) {
    const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
    const secret = flags.secret ?? "MCP_SERVER_TOKEN";
    options.auth = scheme === undefined ? { header, secret } : { header, secret, scheme };
  }
  return options;
}

async function runImport(flags: Flags): Promise<number> {
  if (flags.openapi !== undefined) {
    const operations = flags.operations?.split(",").map((o) => o.trim());
    return importOpenApi(flags.openapi, {
      out: flags.out ?? "contracts",
      prefix: flags.prefix ?? "",
      ...(flags.server === undefined ? {} : { server: flags.server }),
      ...(operations === undefined ? {} : { operations }),
    });
  }
  const url = flags.mcp;
  if (url === undefined) return usage();
  const headers = headersOf(flags);
  const oauth = authOf(flags);
  if (oauth === null) return usage();
  if (oauth) {
    const asked = await asksForOAuth(url).catch((e: unknown) => {
      throw new Unlisted(`cannot reach the MCP server at ${url}: ${(e as Error).message}`);
    });
    if (!asked.ok) {
      console.error(`--auth oauth: the server at ${url} does not ask for OAuth: ${asked.why}`);
      return 1;
    }
  }
  const wanted = flags.tools?.split(",").map((t) => t.trim());
  const listed = await listTools(url, headers, oauth);
  const unknown = (wanted ?? []).filter((w) => !listed.some((t) => t.name === w));
  if (unknown.length > 0) {
    console.error(`the server lists no tool named ${unknown.join(", ")}`);
    return 1;
  }
  const tools = wanted === undefined ? listed : listed.filter((t) => wanted.includes(t.name));
  const out = flags.out ?? "contracts";
  mkdirSync(out, { recursive: true });
  // The file's imports are relative to the folder it is written to, so it builds wherever it lands.
  const options = { ...importOptions(url, flags, headers), imports: importsFrom(out, ROOT) };
  // A name must not imitate another tool of the server, nor one the folder already pins.
  const known = [...listed.map((t) => t.name), ...pinnedNames(out)];
  let refused = 0;
  const written = new Set<string>();
  for (const tool of tools) {
    const findings = scanListedTool(tool, known);
    for (const f of findings) {
      console.error(printable(`finding in ${tool.name}: ${describeListingFinding(f)}`));
    }
    if (findings.some((f) => REFUSING.has(f.kind)) && flags["accept-findings"] !== true) {
      refused++;
      console.error(
        printable(`refused ${tool.name}: its listing has findings (--accept-findings to import)`),
      );
      continue;
    }
    const rendered = renderContract(tool, { ...options, findings });
    if (rendered.ok && written.has(rendered.name)) {
      refused++;
      console.error(`refused ${rendered.name}: another tool of the server has the same name here`);
      continue;
    }
    if (!rendered.ok) {
      refused++;
      console.error(
        printable(
          `refused ${rendered.name}: it cannot be imported strictly\n  ${rendered.problems.join("\n  ")}`,
        ),
      );
      continue;
    }
    written.add(rendered.name);
    const path = join(out, `${rendered.name}.ts`);
    writeFileSync(join(out, pinFile(rendered.name)), rendered.pin);
    writeFileSync(path, rendered.text);
    console.log(
      `wrote ${path} and its pin (${rendered.exportName}); list it in contracts/index.ts and policy allowed_tools`,
    );
  }
  return refused === 0 ? 0 : 1;
}

/** The server and fence names of every tool `dir` pins (none when it has no pins yet). */
function pinnedNames(dir: string): string[] {
  try {
    return readPins(dir).flatMap((p) => [p.tool, p.name]);
  } catch {
    return [];
  }
}

async function runDrift(flags: Flags): Promise<number> {
  const only = flags.mcp;
  const pinned = readPins(flags.dir ?? "contracts").filter(
    (p) => only === undefined || p.source === only,
  );
  const bySource = new Map<string, Pin[]>();
  // --mcp alone, with nothing pinned from it, still lists the server's tools as new.
  if (only !== undefined) bySource.set(only, []);
  for (const p of pinned) bySource.set(p.source, [...(bySource.get(p.source) ?? []), p]);
  let anyDrift = false;
  let unlisted = 0;
  const oauth = authOf(flags);
  if (oauth === null) return usage();
  for (const [source, pins] of bySource) {
    const listed = await listTools(source, headersOf(flags), oauth).catch((e: unknown) => {
      if (!(e instanceof Unlisted)) throw e;
      console.error(`${e.message}; ${pins.length} pinned tool(s) not compared`);
      return null;
    });
    if (listed === null) {
      unlisted++;
      continue;
    }
    const rows = drift(pins, listed);
    console.log(printable(`${source}\n${driftTable(rows)}\n`));
    anyDrift ||= drifted(rows);
  }
  if (anyDrift) console.log("drift: a pinned tool changed or is gone");
  else if (unlisted > 0) console.log(`not compared: ${unlisted} server(s) could not be listed`);
  else console.log("no drift");
  return anyDrift ? 1 : unlisted > 0 ? UNREACHABLE_EXIT : 0;
}

/** Write the client declaration for the contracts listed in `--dir`'s index.ts. */
async function runTypes(flags: Flags): Promise<number> {
  const dir = flags.dir ?? "contracts";
  const out = flags.out ?? "toolfence-tools.d.ts";
  const index = pathToFileURL(resolve(dir, "index.ts")).href;
  const { CONTRACTS } = (await import(index)) as { CONTRACTS: readonly ToolContract[] };
  mkdirSync(dirname(resolve(out)), { recursive: true });
  writeFileSync(out, await clientTypes(CONTRACTS, dir));
  console.log(
    `wrote ${out}: the types of ${CONTRACTS.length} tool(s) of ${dir} for toolfence/client`,
  );
  return 0;
}

/** Whether `--auth oauth` was given; null for another value of `--auth`. */
function authOf(flags: Flags): boolean | null {
  if (flags.auth === undefined) return false;
  return flags.auth === "oauth" ? true : null;
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
  if (command === "types") return runTypes(flags);
  return usage();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`contracts: ${(e as Error).message}`);
    process.exit(e instanceof Unlisted ? UNREACHABLE_EXIT : 1);
  },
);
