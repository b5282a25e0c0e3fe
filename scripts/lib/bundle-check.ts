/**
 * What the deployed bundle must not hold: code generated at run time, which workerd refuses
 * (`eval`, `new Function`: EvalError deployed, while the vitest workers pool allows them), and
 * a module bundled twice, which costs upload size and startup parse time for nothing, and the
 * demo (demo/), whose tickets object, upstreams entrypoint, inbox spy, MCP route and tools ship
 * only with `--env demo`.
 *
 * A module is bundled twice when its source appears twice in the bundle's source map: esbuild
 * lists every input it bundled, and follows each input's own source map back to the files it
 * was built from. Paths are compared from their last `node_modules/`, so one package installed
 * at two places counts as one module bundled twice.
 */

/** Where code is generated at run time, as short excerpts of the bundle. */
export function codegenSites(bundle: string): string[] {
  const CODEGEN = /\bnew Function\s*\(|(?<![\w.$])eval\s*\(/g;
  return [...bundle.matchAll(CODEGEN)].map((m) =>
    bundle.slice(Math.max(0, m.index - 60), m.index + 40),
  );
}

/**
 * Sources the MCP SDK ships inside each of its packages: `@modelcontextprotocol/client` and
 * `@modelcontextprotocol/server` (2.x) are each published with their own build of the SDK's
 * protocol core (`core-internal`, with the `content-type` parser it inlines), each build
 * keeping different parts of it under different names, so no alias merges them: one copy per
 * package is tolerated, a third is not. The JSON Schema validator the two packages also each
 * ship is the same file in both, which wrangler.toml's `[alias]` resolves to one copy, so its
 * sources (`core-internal/src/validators/`, `@cfworker/json-schema`) may appear only once.
 */
const PER_PACKAGE =
  /(^|\/)(@modelcontextprotocol\/core-internal\/src\/(?!validators\/(cfWorkerProvider|dialects)\.ts$)|node_modules\/\.pnpm\/content-type@)/;
const SDK_PACKAGES = 2;

/** The module a source path names: from its last `node_modules/`, `./` and `../` resolved. */
function moduleOf(source: string): string {
  const parts: string[] = [];
  for (const part of source.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  const path = parts.join("/");
  if (PER_PACKAGE.test(path)) {
    const at = path.search(PER_PACKAGE);
    return path.slice(at).replace(/^\//, "");
  }
  const last = path.lastIndexOf("node_modules/");
  return last === -1 ? path : path.slice(last + "node_modules/".length);
}

/** Modules bundled more often than allowed, as `module (n copies)`, from the bundle's source map. */
export function duplicateModules(map: { sources: string[] }): string[] {
  const copies = new Map<string, number>();
  for (const source of map.sources) {
    const name = moduleOf(source);
    copies.set(name, (copies.get(name) ?? 0) + 1);
  }
  return [...copies]
    .filter(([name, n]) => n > (PER_PACKAGE.test(name) ? SDK_PACKAGES : 1))
    .map(([name, n]) => `${name} (${n} copies)`);
}

/** Names only the demo's code carries. */
export const DEMO_MARKERS = [
  "TicketDesk",
  "DemoUpstreams",
  "/inbox/",
  "/demo/mcp",
  "create_ticket",
  "fetch_service_logs",
  "ops_restart_service",
] as const;

/** The demo markers a bundle's text holds. */
export function demoTraces(bundle: string): string[] {
  return DEMO_MARKERS.filter((m) => bundle.includes(m));
}
