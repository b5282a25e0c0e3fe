/**
 * A fence unlike the demo's, for the `one-fence` project (vitest.config.ts): two inline tools
 * and a policy whose every number differs from demo/contracts/policy.json, so a test sees
 * which fence each part of the worker decided with.
 */
import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";
import { startFence } from "../../src/fence.ts";

const stamp = {
  name: "stamp",
  version: "v1",
  description: "Stamp a document.",
  effect: "mutate",
  paid: true,
  input: v.strictObject({ doc: v.string(), level: v.picklist(["low", "high"]) }),
  output: v.strictObject({ ok: v.literal(true) }),
  timeoutMs: 1000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: { kind: "inline", answer: () => ({ ok: true }) },
  example: { args: { doc: "d-1", level: "low" }, result: { ok: true } },
} satisfies ToolContract;

/** The policy: limits, a cap, an approval rule and retentions of its own. */
export const POLICY = {
  allowed_tools: ["stamp"],
  max_mutations: 2,
  max_paid_calls: 7,
  call_timeout_cap_ms: 5000,
  run_deadline_ms: 600_000,
  idempotency_retention_ms: 12_345_000,
  approval_ttl_ms: 777_000,
  tools: {
    stamp: {
      max_calls_per_run: 5,
      approval: [{ name: "high_stamp", arg: "level", in: ["high"] }],
    },
  },
};

export const FENCE = startFence([stamp], POLICY, "test/one-fence/fence.ts");
