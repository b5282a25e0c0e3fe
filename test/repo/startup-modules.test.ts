import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modulesRunAtLoad } from "../../scripts/lib/bundle-startup.ts";

const ROOT = resolve(import.meta.dirname, "../..");
let dir = "";
let bundle = "";

/** Packages a worker loads only when a request needs them (a dynamic `import()`). */
const ON_DEMAND =
  /node_modules\/(@opentelemetry\/(sdk-trace|sdk-metrics|otlp-transformer|resources)|@modelcontextprotocol\/)/;

/**
 * The app and what only it uses: loaded at the isolate's first request, with the app. A
 * package's path is matched wherever its `node_modules` is (a linked install puts it outside).
 */
const WITH_THE_APP =
  /^src\/(app\.ts|http\/|console\/|oauth\/|mcp\/)|(^|\/)node_modules\/(hono|jose|@cloudflare\/workers-oauth-provider)\//;

/**
 * The worker as `wrangler deploy` builds it, unminified so esbuild's module comments and
 * wrappers can be read: which of its modules run when the isolate loads it.
 */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolfence-startup-"));
  const run = spawnSync(
    join(ROOT, "node_modules/.bin/wrangler"),
    ["deploy", "--dry-run", "--outdir", dir, "--minify=false"],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${run.stderr}`);
  bundle = readFileSync(join(dir, "index.js"), "utf8");
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the deployed worker's startup", () => {
  it("evaluates neither the OpenTelemetry SDK nor the MCP SDK, which it carries", () => {
    const modules = [...bundle.matchAll(/^\/\/ (\S+\.\w+)$/gm)].map((m) => m[1] ?? "");
    expect(modules.filter((m) => /@opentelemetry\/sdk-metrics\//.test(m)).length).toBeGreaterThan(
      0,
    );
    expect(modules.filter((m) => /@modelcontextprotocol\//.test(m)).length).toBeGreaterThan(0);

    const atLoad = modulesRunAtLoad(bundle);
    expect(atLoad.some((m) => m.endsWith("src/index.ts"))).toBe(true);
    expect(atLoad.some((m) => /@opentelemetry\/api\//.test(m))).toBe(true);
    expect(atLoad.filter((m) => ON_DEMAND.test(m))).toEqual([]);
  });

  it("leaves the app's routes, pages and OAuth to the first request", () => {
    const modules = [...bundle.matchAll(/^\/\/ (\S+\.\w+)$/gm)].map((m) => m[1] ?? "");
    expect(modules.filter((m) => WITH_THE_APP.test(m)).length).toBeGreaterThan(100);

    const atLoad = modulesRunAtLoad(bundle);
    expect(atLoad.some((m) => m.startsWith("src/ledger/"))).toBe(true);
    expect(atLoad.filter((m) => WITH_THE_APP.test(m))).toEqual([]);
  });

  it("imports node:crypto when it first hashes, not when it loads", () => {
    // An import of a runtime module stays at the top of the bundle, however lazily the module
    // that wrote it is evaluated, and workerd builds the module when the bundle loads.
    expect(bundle).toContain('getBuiltinModule("node:crypto")');
    expect(bundle.match(/^import .* from "node:crypto";$/gm)).toBeNull();
  });
});

describe("the startup scan", () => {
  it("counts inlined modules and the wrappers called at the top level, not those called later", () => {
    const text = [
      "// node_modules/eager/a.js",
      "var a = 1;",
      "",
      "// node_modules/dep/b.js",
      "var b;",
      "var init_b = __esm({",
      '  "node_modules/dep/b.js"() {',
      "    b = 2;",
      "  }",
      "});",
      "",
      "// node_modules/lazy/c.js",
      "var c_exports = {};",
      "var init_c = __esm({",
      '  "node_modules/lazy/c.js"() {',
      "    init_b();",
      "    c = 3;",
      "  }",
      "});",
      "",
      "// src/load.ts",
      "var load = () => Promise.resolve().then(() => (init_c(), c_exports));",
      "var init_load = __esm({",
      '  "src/load.ts"() {',
      "    init_b();",
      "  }",
      "});",
      "",
      "// src/index.ts",
      "init_load();",
      "// @__NO_SIDE_EFFECTS__",
      "function pure() {}",
    ].join("\n");
    expect(modulesRunAtLoad(text)).toEqual([
      "node_modules/eager/a.js",
      "node_modules/dep/b.js",
      "src/load.ts",
      "src/index.ts",
    ]);
    expect(modulesRunAtLoad(text.replace("\ninit_load();", "\ninit_load();\ninit_c();"))).toContain(
      "node_modules/lazy/c.js",
    );
  });
});
