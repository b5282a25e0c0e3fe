import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // The demo log backend answers at once in tests; its latency is a benchmark's concern.
      miniflare: { bindings: { DEMO_LOG_LATENCY_MS: "0-0" } },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
  },
});
