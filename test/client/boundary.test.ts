import { describe, expect, it } from "vitest";

// The client's sources as text (Vite's `?raw` glob), so the rule holds for every file added.
const sources = import.meta.glob<string>("../../client/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** `import … from "x"` and `export … from "x"`, with whether the statement is type-only. */
const MODULE_REF = /^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms;

/** What a client file may import at run time: its siblings and the adapters' own framework. */
function allowedAtRuntime(specifier: string, file: string): boolean {
  if (/^\.\/[\w-]+\.ts$/.test(specifier)) return true;
  if (file.endsWith("/ai.ts")) return specifier === "ai";
  if (file.endsWith("/openai-agents.ts")) return specifier === "@openai/agents";
  return false;
}

/** What it may import as types only: the contracts' types and valibot's inference helpers. */
const TYPE_ONLY = new Set(["../contracts/index.ts", "valibot"]);

describe("the client stays beside the worker, not in it", () => {
  it("imports nothing from cloudflare:* and nothing server-side but the contracts' types", () => {
    const files = Object.entries(sources);
    expect(files.length).toBeGreaterThanOrEqual(8);
    const offences: string[] = [];
    for (const [file, text] of files) {
      for (const [, , typeOnly, specifier = ""] of text.matchAll(MODULE_REF)) {
        const ok =
          allowedAtRuntime(specifier, file) || (typeOnly !== undefined && TYPE_ONLY.has(specifier));
        if (!ok) offences.push(`${file}: ${specifier}`);
      }
      if (/\bimport\s*\(|\brequire\s*\(/.test(text)) offences.push(`${file}: dynamic import`);
    }
    expect(offences).toEqual([]);
  });

  it("catches a forbidden import", () => {
    const text =
      'import { env } from "cloudflare:workers";\nimport { x } from "../src/core/gate.ts";';
    const found = [...text.matchAll(MODULE_REF)].map((m) => m[3]);
    expect(found).toEqual(["cloudflare:workers", "../src/core/gate.ts"]);
    expect(found.some((s) => allowedAtRuntime(s ?? "", "client/index.ts"))).toBe(false);
  });
});
