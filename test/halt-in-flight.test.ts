import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import policy from "../contracts/policy.json" with { type: "json" };
import { buildApp } from "../src/app.ts";
import type { ToolContract } from "../src/core/contract.ts";
import { loadFence } from "../src/core/policy.ts";
import { signedIn } from "./console/browser.ts";
import { DEV_KEY, devRequest, json, newRun, proposeThrough } from "./helpers.ts";

/** An upstream that answers each request only when the test lets it. */
class HeldUpstream {
  received = 0;
  private readonly waiting: (() => void)[] = [];

  async fetch(): Promise<Response> {
    this.received++;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return Response.json({ ticket_id: "T-1", rows: 3 });
  }

  release(): void {
    for (const go of this.waiting.splice(0)) go();
  }
}

const upstream = (path: string, method: "GET" | "POST") =>
  ({ kind: "service", binding: "UPSTREAM", method, path }) as const;

const openTicket: ToolContract = {
  name: "open_ticket",
  version: "v1",
  description: "Open a ticket, slowly.",
  effect: "mutate",
  paid: false,
  input: v.strictObject({}),
  output: v.strictObject({ ticket_id: v.string(), rows: v.number() }),
  timeoutMs: 5000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: upstream("/tickets", "POST"),
};

const report: ToolContract = {
  ...openTicket,
  name: "read_report",
  description: "A cacheable report, slowly.",
  effect: "read",
  cacheTtlSeconds: 60,
  upstream: upstream("/report", "GET"),
};

const loaded = loadFence({ ...policy, allowed_tools: ["open_ticket", "read_report"], tools: {} }, [
  openTicket,
  report,
]);
if (!loaded.ok) throw new Error(loaded.error.join("; "));
const app = buildApp(loaded.value);

function propose(held: HeldUpstream, run: string, body: unknown): Promise<Response> {
  return proposeThrough(app, { ...env, UPSTREAM: held } as Env, run, body);
}

async function halt(run: string): Promise<Response> {
  const request = devRequest(`/v1/runs/${run}/halt?reason=incident`, { method: "POST" });
  return app.fetch(request, env);
}

interface Entry {
  seq: number;
  decision: string;
  reason: string | null;
  of: number | null;
  actor: string | null;
  note: string | null;
}

async function audit(run: string): Promise<Entry[]> {
  const page = await app.fetch(devRequest(`/v1/runs/${run}/audit`), env);
  return (await json<{ entries: Entry[] }>(page)).entries;
}

/** Start a call, wait until it reached the upstream, halt the run, then let the upstream answer. */
async function haltMidCall(body: unknown) {
  const held = new HeldUpstream();
  const run = newRun("halt-mid");
  const answer = propose(held, run, body);
  await vi.waitFor(() => expect(held.received).toBe(1));
  const halted = await halt(run);
  held.release();
  return { run, held, halted, answer: await answer };
}

describe("a halt reaches the calls in flight", () => {
  it("names them, is an audit entry, and marks a mutation's late outcome", async () => {
    const call = { tool: "open_ticket", args: {}, idempotency_key: "k-halt-mid-01" };
    const { run, halted, answer } = await haltMidCall(call);
    expect(halted.status).toBe(200);
    const view = await json<{ status: string; in_flight: { seq: number; tool: string }[] }>(halted);
    expect(view.status).toBe("halted");
    expect(view.in_flight).toMatchObject([{ seq: 1, tool: "open_ticket" }]);
    // The mutation happened and cannot be undone: its outcome is answered, and marked late.
    expect(answer.status).toBe(200);
    const entries = await audit(run);
    expect(entries.map((e) => [e.seq, e.decision, e.of])).toEqual([
      [1, "pending", null],
      [2, "halted", null],
      [3, "applied", 1],
    ]);
    expect(entries[1]).toMatchObject({ actor: "development", note: "incident" });
    expect(entries[2]?.note).toMatch(/after the run was halted/);
    // The console's timeline shows the halt's reason and the late outcome's mark.
    const page = await (await (await signedIn(DEV_KEY)).get(`/console/runs/${run}`)).text();
    expect(page).toContain("incident");
    expect(page).toContain("settled after the run was halted (outcome: applied)");
  });

  it("withholds a read's late result from the caller and from the cache", async () => {
    const call = { tool: "read_report", args: {} };
    const { run, answer } = await haltMidCall(call);
    expect(answer.status).toBe(403);
    expect(await json(answer)).toMatchObject({ reason: "run_halted" });
    const entries = await audit(run);
    expect(entries.map((e) => [e.decision, e.reason, e.of])).toEqual([
      ["pending", null, null],
      ["halted", null, null],
      ["block", "run_halted", 1],
    ]);
    expect(entries[2]?.note).toMatch(/after the run was halted \(outcome: applied\)/);
    // The same read in another run reaches the upstream again: nothing was cached.
    const again = new HeldUpstream();
    const next = propose(again, newRun("halt-mid"), call);
    await vi.waitFor(() => expect(again.received).toBe(1));
    again.release();
    expect((await next).headers.get("X-Cache")).toBe("miss");
  });
});
