import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../../demo/contracts/index.ts";
import { type CacheRoute, routeRead } from "../../src/cache/read-through.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { resultRulesOf, resultRulesVersion } from "../../src/core/guardrails/of-fence.ts";
import { type Fence, loadFence } from "../../src/core/policy.ts";
import { execute } from "../../src/execute/execute.ts";
import { doubleTool, freshTiers, newService } from "../cache/helpers.ts";

const TOKEN = `ghp_${"aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC".repeat(2).slice(0, 36)}`;

function fenceWith(results: unknown): Fence {
  const loaded = loadFence({ ...(POLICY_SOURCE as object), results }, CONTRACTS);
  if (!loaded.ok) throw new Error(loaded.error.join("\n"));
  return loaded.value;
}

async function read(
  fence: Fence,
  tiers: Awaited<ReturnType<typeof freshTiers>>,
  contract: ToolContract,
  args: unknown,
): Promise<CacheRoute> {
  const writes: Promise<unknown>[] = [];
  const route = await routeRead({
    tiers,
    contract,
    args,
    tenant: "acme",
    noCache: false,
    rules: resultRulesVersion(fence, contract),
    defer: (w) => writes.push(w),
  });
  if (route.kind === "leader") {
    const ctx = { env, tenant: "acme", runId: "r", upstreamKey: null, timeoutMs: 1000 };
    const resultRules = resultRulesOf(fence, contract);
    route.leader.land(await execute(contract, args, { ...ctx, resultRules }));
  }
  await Promise.all(writes);
  return route;
}

describe("a cached result and the result rules", () => {
  it("is stored as the rules left it, and missed once the rules change", async () => {
    const tiers = await freshTiers();
    const tool = doubleTool(() => ({ logs: [`deploy used ${TOKEN}`] }));
    const args = { service: newService(), window: "5m" };
    const redacting = fenceWith(undefined);
    expect((await read(redacting, tiers, tool.contract, args)).cache).toBe("miss");
    const hit = await read(redacting, tiers, tool.contract, args);
    expect(hit.kind === "served" && hit.execution).toEqual({
      ok: true,
      result: { logs: ["deploy used [redacted:secret:github-pat]"] },
      findings: [expect.objectContaining({ rule: "secrets", action: "redact", path: "$.logs[0]" })],
    });
    const blocking = fenceWith({ secrets: "block" });
    expect(resultRulesVersion(blocking, tool.contract)).not.toBe(
      resultRulesVersion(redacting, tool.contract),
    );
    const changed = await read(blocking, tiers, tool.contract, args);
    expect(changed.cache).toBe("miss");
    expect(tool.runs()).toBe(2);
  });
});
