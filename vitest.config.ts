import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { kCurrentWorker } from "miniflare";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Every decision logs one JSON line (src/telemetry/decision-log.ts); not in test output.
    onConsoleLog: (log) => !log.includes('"event":"toolfence.decision"'),
    projects: [
      {
        // The worker's own tests, inside workerd with every binding of wrangler.toml's demo
        // environment: the fence with the demo's tools, and the demo upstreams in the same
        // worker (test/worker.ts), so `DEMO` and `TICKET_DESK` reach them.
        plugins: [
          cloudflareTest({
            main: "./test/worker.ts",
            wrangler: { configPath: "./wrangler.toml", environment: "demo" },
            miniflare: {
              serviceBindings: { DEMO: { name: kCurrentWorker, entrypoint: "DemoUpstreams" } },
              durableObjects: { TICKET_DESK: { className: "TicketDesk", useSQLite: true } },
              bindings: {
                // The demo log backend answers at once in tests; its latency is a benchmark's concern.
                DEMO_LOG_LATENCY_MS: "0-0",
                // The documented development key, as `npm run dev` sets it.
                DEV_KEY: "tf_dev_local_key",
                // The tests reach the fence as http://localhost, from other addresses too.
                FENCE_HOSTNAMES: "localhost",
                // Signs console sessions; any 32 characters or more.
                CONSOLE_SECRET: "test-console-secret-0123456789abcdef",
                // The demo's OAuth-protected notes server, answered by test/connections/stand-in.ts.
                MCP_NOTES_URL: "https://notes.example/mcp",
                // Upstream connections' key ring: a test key, never a deployment's.
                CONNECTION_KEYS: "test:6b0Y3cD5hK9pQ2rS4tU6vW8xZ1aB3cD5eF7gH9jK0lM",
              },
              // A small per-key limit keeps the flood test short; every test key is fresh.
              ratelimits: {
                CALL_LIMITER: { namespace_id: "1001", simple: { limit: 20, period: 60 } },
                AUTH_FAILURE_LIMITER: {
                  namespace_id: "1002",
                  simple: { limit: 20, period: 60 },
                },
                // Every OAuth test registers from loopback; the flood test uses its own address.
                REGISTRATION_LIMITER: {
                  namespace_id: "1003",
                  simple: { limit: 200, period: 60 },
                },
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "test/repo/**", "test/one-fence/**", "test/telemetry/**"],
        },
      },
      {
        // The product's worker made from a fence of the test's own (test/one-fence/), with the
        // bindings of wrangler.toml: the gate and the run ledger decide with that one fence.
        plugins: [
          cloudflareTest({
            main: "./test/one-fence/worker.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                DEV_KEY: "tf_dev_local_key",
                CONSOLE_SECRET: "test-console-secret-0123456789abcdef",
              },
            },
          }),
        ],
        test: { name: "one-fence", include: ["test/one-fence/**/*.test.ts"] },
      },
      {
        // The telemetry's spans and OTLP export in Node: what was sent is decoded with
        // protobufjs, which compiles its decoders at run time (workerd refuses code generation).
        test: { name: "telemetry", environment: "node", include: ["test/telemetry/**/*.test.ts"] },
      },
      {
        // Checks of the repository itself: layers and links.
        test: { name: "repo", environment: "node", include: ["test/repo/**/*.test.ts"] },
      },
      {
        // Real clients in Node against one `wrangler dev` started for the whole project.
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
