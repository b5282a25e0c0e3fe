import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";

export const fetchServiceLogs = {
  name: "fetch_service_logs",
  version: "v1",
  description:
    "Fetch recent log lines of one Kubernetes service from the log backend (slow, rate-limited, paid).",
  effect: "read",
  paid: true,
  input: v.strictObject({
    service: v.pipe(
      v.string(),
      v.minLength(1, "service cannot be empty"),
      v.maxLength(63),
      v.regex(/^[a-z0-9-]+$/, "service must be lowercase alphanumeric with dashes"),
      v.description("Kubernetes service name: lowercase letters, digits and dashes"),
    ),
    window: v.pipe(
      v.string(),
      v.regex(/^[1-9][0-9]{0,2}[mh]$/, "window must be like 5m, 1h, 24h"),
      v.description("Time window: a number of minutes or hours, e.g. 5m, 1h, 24h"),
    ),
  }),
  output: v.strictObject({ logs: v.array(v.string()) }),
  timeoutMs: 4000,
  cacheTtlSeconds: 300,
  sharedCache: false,
  upstream: { kind: "service", binding: "DEMO", method: "POST", path: "/logs/query" },
  example: { args: { service: "auth", window: "24h" }, result: { logs: ["a", "b"] } },
} satisfies ToolContract;
