import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../../demo/contracts/index.ts";
import { buildApp } from "../../src/app.ts";
import { loadFence } from "../../src/core/policy.ts";
import { newRun, proposeThrough } from "../helpers.ts";

const fence = loadFence(POLICY_SOURCE, CONTRACTS);
if (!fence.ok) throw new Error(fence.error.join("; "));
// The app itself, so the call sees the bindings the test passes.
const worker = buildApp(fence.value);

/** The bindings with DRIFT counting the reads of each key. */
function countingDrift(): { bindings: Env; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const drift = new Proxy(env.DRIFT, {
    get(target, prop) {
      if (prop !== "get") return Reflect.get(target, prop, target);
      return (key: string, ...rest: unknown[]) => {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return (target.get as (...a: unknown[]) => unknown).call(target, key, ...rest);
      };
    },
  });
  return { bindings: { ...env, DRIFT: drift } as Env, reads };
}

describe("an MCP call and its drift record", { timeout: 30_000 }, () => {
  it("reads the record once per call: the pin check before the cache covers the call", async () => {
    const { bindings, reads } = countingDrift();
    const call = { tool: "ops_restart_service", args: { service: "ledger", reason: "stuck" } };
    const res = await proposeThrough(worker, bindings, newRun("drift-once"), {
      ...call,
      idempotency_key: crypto.randomUUID(),
    });
    expect(res.status).toBe(200);
    expect(reads.get("drift:ops_restart_service")).toBe(1);
  });
});
