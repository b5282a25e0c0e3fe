import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import { opsServiceStatus } from "../../demo/contracts/ops_service_status.ts";
import type { McpUpstream, ToolContract } from "../../src/core/contract.ts";
import { checkDrift } from "../../src/execute/drift-check.ts";
import { demoUpstreams, json, newRun, proposeThrough } from "../helpers.ts";

// A drift the scheduled check sees invalidates the tool's cached results at once: the cache
// key carries the tool's epoch, which the check changes with the drift record.
const worker = exports.default as unknown as Parameters<typeof proposeThrough>[0];
const status = { tool: "ops_service_status", args: { service: "drift-cache" } };

const changed: ToolContract = {
  ...opsServiceStatus,
  upstream: {
    ...(opsServiceStatus.upstream as McpUpstream),
    pinned: { ...(opsServiceStatus.upstream as McpUpstream).pinned, sha256: "0".repeat(64) },
  },
};

async function inboxReceived(run: string): Promise<number> {
  const res = await demoUpstreams().fetch(`https://demo.internal/inbox/default/${run}`);
  return (await json<{ received: number }>(res)).received;
}

describe("a drifted MCP tool's cached results", () => {
  it("are never served once the check has seen the drift, nor after it clears", async () => {
    // The first MCP call of the isolate loads the client; under load it may pass the timeout.
    await proposeThrough(worker, env, newRun("warm"), { ...status, args: { service: "warm" } });
    const run = newRun("drift-cache");
    expect(await json(await proposeThrough(worker, env, run, status))).toMatchObject({
      decision: "applied",
    });
    expect(await json(await proposeThrough(worker, env, run, status))).toMatchObject({
      decision: "cached",
    });

    await checkDrift(env, [changed]);
    const refused = await proposeThrough(worker, env, run, status);
    expect(await json(refused)).toMatchObject({ reason: "upstream_drifted" });

    // The server lists the pin again: the call goes to it, not to a result cached before.
    await checkDrift(env, CONTRACTS);
    expect(await json(await proposeThrough(worker, env, run, status))).toMatchObject({
      decision: "applied",
    });
    expect(await inboxReceived(run)).toBe(2);
  }, 20_000);

  it("keep their key while the drift stays the same from one check to the next", async () => {
    await checkDrift(env, [changed]);
    const key = await env.DRIFT.get("epoch:ops_service_status");
    await checkDrift(env, [changed]);
    expect(await env.DRIFT.get("epoch:ops_service_status")).toBe(key);
    await checkDrift(env, CONTRACTS);
    expect(await env.DRIFT.get("epoch:ops_service_status")).not.toBe(key);
    await checkDrift(env, CONTRACTS);
    const cleared = await env.DRIFT.get("epoch:ops_service_status");
    await checkDrift(env, CONTRACTS);
    expect(await env.DRIFT.get("epoch:ops_service_status")).toBe(cleared);
  }, 20_000);
});
