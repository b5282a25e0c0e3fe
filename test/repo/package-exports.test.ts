import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { intentKey } from "../../client/index.ts";
import tsdown from "../../tsdown.config.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));

/** Each subpath, the source it is built from, and the one SDK it may import. */
const ENTRIES = [
  { subpath: "./client", out: "client", source: "client/index.ts", sdk: null },
  { subpath: "./ai", out: "ai", source: "client/ai.ts", sdk: "ai" },
  {
    subpath: "./openai-agents",
    out: "openai-agents",
    source: "client/openai-agents.ts",
    sdk: "@openai/agents",
  },
];

describe("the package's subpath exports", () => {
  it("point each of toolfence/client, /ai and /openai-agents at its build and declarations", () => {
    for (const { subpath, out, source } of ENTRIES) {
      expect(manifest.exports[subpath]).toEqual({
        types: `./dist/${out}.d.ts`,
        default: `./dist/${out}.js`,
      });
      expect((tsdown as { entry: Record<string, string> }).entry[out]).toBe(source);
    }
    expect(manifest.files).toEqual(["dist"]);
    expect(manifest.scripts.prepack).toBe("npm run build");
  });

  it("gives a consumer no dependency, and each adapter's SDK as an optional peer", () => {
    expect(manifest.dependencies ?? {}).toEqual({});
    for (const { sdk } of ENTRIES) {
      if (sdk === null) continue;
      expect(manifest.peerDependencies[sdk]).toBeDefined();
      expect(manifest.peerDependenciesMeta[sdk]).toEqual({ optional: true });
    }
  });

  it("makes the same intent key from the same parts, and another from other parts", async () => {
    const a = await intentKey("create", "T-1");
    expect(a).toMatch(/^intent:[0-9a-f]{64}$/);
    expect(await intentKey("create", "T-1")).toBe(a);
    expect(await intentKey("create", "T-2")).not.toBe(a);
  });
});
