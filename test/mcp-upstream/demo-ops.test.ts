import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { demoUpstreams, json, newRun, proposeThrough } from "../helpers.ts";

// The demo's MCP server behind the DEMO binding, called by the worker as an MCP client.
const worker = exports.default as unknown as Parameters<typeof proposeThrough>[0];

const status = (service: string) => ({ tool: "ops_service_status", args: { service } });
const restart = (service: string, key: string) => ({
  tool: "ops_restart_service",
  args: { service, reason: "stuck worker pool" },
  idempotency_key: key,
});

async function inbox(
  run: string,
): Promise<{ received: number; violations: number; keys: Record<string, number> }> {
  return json(await demoUpstreams().fetch(`https://demo.internal/inbox/default/${run}`));
}

describe("the demo MCP upstream through the fence", () => {
  it("applies a status read with its structured content, then serves it from the cache", async () => {
    const run = newRun("ops");
    const first = await proposeThrough(worker, env, run, status("checkout"));
    expect(first.status).toBe(200);
    const body = await json<{ result: { structuredContent: { service: string } } }>(first);
    expect(body.result.structuredContent.service).toBe("checkout");
    const again = await proposeThrough(worker, env, run, status("checkout"));
    expect(await json(again)).toMatchObject({ decision: "cached" });
    expect((await inbox(run)).received).toBe(1);
  });

  it("sends a mutation's idempotency key in _meta, once, and replays a retry", async () => {
    const run = newRun("ops");
    const first = await json(
      await proposeThrough(worker, env, run, restart("payments", "k-restart-1")),
    );
    expect(first).toMatchObject({ decision: "applied" });
    const retry = await json(
      await proposeThrough(worker, env, run, restart("payments", "k-restart-1")),
    );
    expect(retry).toMatchObject({ decision: "replayed", result: first.result });
    const seen = await inbox(run);
    // The server reads the key only from _meta; it saw one request, with one key.
    expect(seen.received).toBe(1);
    expect(Object.values(seen.keys)).toEqual([1]);
  });

  it("blocks arguments outside the pinned contract before the server sees them", async () => {
    const run = newRun("ops");
    const res = await proposeThrough(worker, env, run, status("Checkout!"));
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ reason: "contract_violation" });
    expect((await inbox(run)).received).toBe(0);
  });
});
