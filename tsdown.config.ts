import { defineConfig } from "tsdown";

/**
 * The client package (`toolfence/client`, `/ai`, `/openai-agents`) as JavaScript and bundled
 * declarations in `dist/`, built before `npm pack`. Each adapter's SDK stays an import of the
 * consumer's own copy; the client's types, inferred from the contracts, are inlined with the
 * valibot types they need, so a consumer installs nothing of the worker.
 */
export default defineConfig({
  entry: {
    client: "client/index.ts",
    ai: "client/ai.ts",
    "openai-agents": "client/openai-agents.ts",
  },
  outDir: "dist",
  format: "esm",
  platform: "neutral",
  target: "es2022",
  // valibot reaches only the declarations (the client's JavaScript imports none of it).
  deps: { neverBundle: ["ai", "@openai/agents"], onlyBundle: ["valibot"] },
  dts: {
    // TypeScript 7's `tsc` is the native compiler the declarations are emitted with.
    tsgo: { path: "node_modules/typescript/bin/tsc" },
    tsconfig: "tsconfig.client.json",
  },
});
