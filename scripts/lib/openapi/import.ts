/**
 * `contracts import --openapi`: read and resolve a description, write one contract file per
 * operation that can be imported strictly, and print every other operation with its reasons.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { dereference } from "@readme/openapi-parser";
import { importsFrom } from "../mcp/contract-file.ts";
import { literal } from "../mcp/literal.ts";
import { printable } from "../printable.ts";
import { type OpenApiOptions, operationsOf, remoteName, renderOperation } from "./contract-file.ts";

type Node = Record<string, unknown>;

/** The project the written files import the fence's modules from. */
const ROOT = resolve(import.meta.dirname, "../../..");

export interface OpenApiImport {
  out: string;
  prefix: string;
  /** The upstream's base URL, in place of the description's `servers`. */
  server?: string;
  /** operationIds (or fence names) to import; all when absent. */
  operations?: readonly string[];
}

/** Import `source` (a file path or URL); 0 when every chosen operation was written. */
export async function importOpenApi(source: string, options: OpenApiImport): Promise<number> {
  const cycles: string[] = [];
  // A cycle stays a `$ref`, which the translation refuses for the operations that reach it.
  const doc = (await dereference(source, {
    dereference: { circular: "ignore", onCircular: (path) => cycles.push(path) },
  })) as unknown as Node;
  const version = String(doc.openapi ?? doc.swagger ?? "");
  if (!/^3\.[01]\./.test(version)) {
    console.error(`contracts: ${literal(version)} is not OpenAPI 3.0 or 3.1`);
    return 1;
  }
  for (const c of cycles)
    console.error(`cycle at ${literal(c)}: operations reaching it are refused`);
  const components = (doc.components ?? {}) as Node;
  const imports = importsFrom(options.out, ROOT);
  const render: OpenApiOptions = {
    prefix: options.prefix,
    contractModule: imports.contract,
    jsonSchemaModule: imports.jsonSchema,
    servers: doc.servers,
    securitySchemes: (components.securitySchemes ?? {}) as Node,
    security: doc.security,
    ...(options.server === undefined ? {} : { server: options.server }),
  };
  const all = operationsOf(doc);
  const wanted = options.operations;
  const chosen = wanted === undefined ? all : all.filter((o) => wanted.includes(remoteName(o)));
  const missing = (wanted ?? []).filter((w) => !all.some((o) => remoteName(o) === w));
  if (missing.length > 0) {
    console.error(`the description has no operation ${missing.map(literal).join(", ")}`);
    return 1;
  }
  mkdirSync(options.out, { recursive: true });
  const written = new Set<string>();
  let refused = 0;
  for (const o of chosen) {
    const rendered = renderOperation(o, render);
    if (!rendered.ok || written.has(rendered.name)) {
      refused++;
      const why = rendered.ok ? ["another operation has the same name"] : rendered.problems;
      console.error(
        printable(
          `refused ${rendered.name}: it cannot be imported strictly\n  ${why.join("\n  ")}`,
        ),
      );
      continue;
    }
    written.add(rendered.name);
    const path = join(options.out, `${rendered.name}.ts`);
    writeFileSync(path, rendered.text);
    console.log(`wrote ${path} (${rendered.exportName})`);
  }
  console.log(
    `${written.size} written, ${refused} refused; list them in contracts/index.ts and policy allowed_tools`,
  );
  return refused === 0 ? 0 : 1;
}
