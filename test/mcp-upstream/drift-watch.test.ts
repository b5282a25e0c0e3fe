import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../../demo/contracts/index.ts";
import { opsRestartService } from "../../demo/contracts/ops_restart_service.ts";
import { opsServiceStatus } from "../../demo/contracts/ops_service_status.ts";
import { buildApp } from "../../src/app.ts";
import type { McpUpstream, ToolContract } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { driftOf } from "../../src/execute/drift.ts";
import { checkDrift } from "../../src/execute/drift-check.ts";
import { demoUpstreams, dev, json, newRun, proposeThrough } from "../helpers.ts";

// The scheduled drift check against the demo's MCP server, and what calls and the catalogue
// do with its records. The demo server is unchanged, so drift is made by pinning differently.
const worker = exports.default as unknown as Parameters<typeof proposeThrough>[0];
const status = { tool: "ops_service_status", args: { service: "ledger" } };

function pinnedAs(c: ToolContract, change: Partial<McpUpstream>): ToolContract {
  return { ...c, upstream: { ...(c.upstream as McpUpstream), ...change } };
}

async function inboxReceived(run: string): Promise<number> {
  const res = await demoUpstreams().fetch(`https://demo.internal/inbox/default/${run}`);
  return (await json<{ received: number }>(res)).received;
}

describe("the scheduled drift check", { timeout: 30_000 }, () => {
  it("records nothing while the server lists the pinned schemas", async () => {
    await checkDrift(env, CONTRACTS);
    expect(await driftOf(env, "ops_service_status")).toBeNull();
    expect(await driftOf(env, "ops_restart_service")).toBeNull();
  });

  it("records a changed and a gone tool; calls are refused, the catalogue marks them", async () => {
    const changed = pinnedAs(opsServiceStatus, {
      pinned: { ...(opsServiceStatus.upstream as McpUpstream).pinned, sha256: "0".repeat(64) },
    });
    const gone = pinnedAs(opsRestartService, { tool: "restart_pods" });
    await checkDrift(env, [changed, gone], new Date("2026-12-03T07:00:00Z"));
    expect(await driftOf(env, "ops_service_status")).toMatchObject({
      status: "changed",
      seen_sha256: (opsServiceStatus.upstream as McpUpstream).pinned.sha256,
      checked_at: "2026-12-03T07:00:00.000Z",
    });
    expect(await driftOf(env, "ops_restart_service")).toMatchObject({
      status: "gone",
      seen_sha256: null,
    });

    const run = newRun("drift");
    const refused = await proposeThrough(worker, env, run, status);
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ reason: "upstream_drifted", decision: "escalate" });
    expect(await inboxReceived(run)).toBe(0);

    const listed = await json<{ tools: Array<{ name: string; drifted?: boolean }> }>(
      await dev.get("/v1/tools"),
    );
    const marks = Object.fromEntries(listed.tools.map((t) => [t.name, t.drifted ?? false]));
    expect(marks).toMatchObject({ ops_service_status: true, ops_restart_service: true });
    expect(marks.get_ticket).toBe(false);

    // on_drift "allow": the same call is made.
    const loaded = loadFence({ ...(POLICY_SOURCE as object), on_drift: "allow" }, CONTRACTS);
    if (!loaded.ok) throw new Error(loaded.error.join("; "));
    const allowed = await proposeThrough(buildApp(loaded.value), env, newRun("drift"), status);
    expect(await json(allowed)).toMatchObject({ decision: "applied" });

    // The next check finds the pins matching again and clears the records.
    await checkDrift(env, CONTRACTS);
    expect(await driftOf(env, "ops_service_status")).toBeNull();
    const after = await proposeThrough(worker, env, newRun("drift"), {
      ...status,
      args: { service: "ledger-2" },
    });
    expect(await json(after)).toMatchObject({ decision: "applied" });
  });
});
