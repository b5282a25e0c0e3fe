import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../demo/worker.ts";
import { claimObjectName } from "../../src/ledger/TargetClaims.ts";
import { logsCall, newService } from "../cache/helpers.ts";
import { devRequest, newRun, seedTicket, ticketCall } from "../helpers.ts";
import { type Counter, type Counts, counter, snapshot } from "./counting.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** What one call waited on before its answer, and what ran after it (deferred work). */
interface Measured {
  /** Counts when the response was in hand. */
  before: Counts;
  /** Counts once the deferred work finished too. */
  after: Counts;
  /** The response's X-Cache header, or null. */
  cache: string | null;
  /** The HTTP status. */
  status: number;
}

/** Propose `body` through the worker with counted bindings, watching the run's transactions. */
async function measure(count: Counter, runId: string, body: unknown): Promise<Measured> {
  await count.watch("RUN_LEDGER", `default/${runId}`);
  await count.watchTenant("default");
  count.counts.run.length = 0;
  const ctx = createExecutionContext();
  const request = devRequest(`/v1/runs/${runId}/calls`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await worker.fetch(request, count.env, ctx);
  const before = snapshot(count.counts);
  await response.text();
  await waitOnExecutionContext(ctx);
  return {
    before,
    after: snapshot(count.counts),
    cache: response.headers.get("X-Cache"),
    status: response.status,
  };
}

/** Fresh counters for the next call, keeping the bindings' spies. */
function reset(count: Counter) {
  const c = count.counts;
  for (const list of [c.run, c.claim, c.tenant, c.timeline, c.cache, c.kv, c.limiter, c.alarms]) {
    list.length = 0;
  }
  c.upstream = 0;
  c.transactions = 0;
}

describe("what each path waits on before its answer", () => {
  it("a refused call: one RunLedger step, one transaction, nothing else", async () => {
    const count = counter();
    const m = await measure(count, newRun(), { tool: "no_such_tool", args: {} });
    expect(m.status).toBe(422);
    expect(m.before).toMatchObject({ run: ["record"], claim: [], cache: [], kv: [] });
    expect(m.before.transactions).toBe(1);
    expect(m.before.upstream).toBe(0);
  });

  it("a noop: one RunLedger step, one transaction, no upstream, no cache", async () => {
    const count = counter();
    const run = newRun();
    const m = await measure(count, run, { tool: "noop", args: {} });
    expect(m.status).toBe(200);
    expect(m.before).toMatchObject({ run: ["propose"], claim: [], cache: [], kv: [] });
    expect(m.before.transactions).toBe(1);
    expect(m.before.upstream).toBe(0);
    // A run's first call waits for its tenant's index once: it counts the open runs.
    expect(m.before.tenant).toEqual(["openRun"]);
    expect(m.after.tenant).toEqual(["openRun"]);
    reset(count);
    const next = await measure(count, run, { tool: "noop", args: {} });
    expect(next.status).toBe(200);
    expect(next.before).toMatchObject({ run: ["propose"], claim: [], tenant: [] });
    expect(next.after.tenant).toEqual([]);
  });

  it("a cache hit: the noop's one ledger step, and no Cache API or KV await", async () => {
    const count = counter();
    const service = newService();
    const run = newRun();
    const miss = await measure(count, run, logsCall(service));
    expect(miss.cache).toBe("miss");
    reset(count);
    const hit = await measure(count, run, logsCall(service));
    expect(hit.cache).toBe("hit-memory");
    expect(hit.before).toMatchObject({ run: ["propose"], claim: [], cache: [], kv: [] });
    expect(hit.before.transactions).toBe(1);
    expect(hit.after).toMatchObject({ cache: [], kv: [], upstream: 0 });
  });

  it("a read miss: one lookup per tier, two ledger steps around the upstream", async () => {
    const count = counter();
    const m = await measure(count, newRun(), logsCall(newService()));
    expect(m.cache).toBe("miss");
    // The stores start as the tool's result lands and run beside the settle step, deferred
    // (waitUntil): the answer waits on the lookups and the two ledger steps only.
    expect(m.before).toMatchObject({
      run: ["propose", "settle"],
      claim: [],
      cache: ["match", "put"],
      kv: ["RESULTS.get", "RESULTS.put"],
      upstream: 1,
    });
    expect(m.before.transactions).toBe(2);
  });

  it("a mutation with no tenant-wide rule: two ledger steps around the upstream", async () => {
    const count = counter();
    const ticket = await seedTicket();
    const call = ticketCall("add_comment", { ticket_id: ticket, body: "seen" }, "k-count-comment");
    const run = newRun();
    const m = await measure(count, run, call);
    expect(m.status).toBe(200);
    expect(m.before).toMatchObject({ run: ["propose", "settle"], claim: [], cache: [], kv: [] });
    expect(m.before.transactions).toBe(2);
    expect(m.before.upstream).toBe(1);
    // The one alarm write is the new run's end; the call's lease moves no alarm, and neither
    // does its settle.
    expect(m.after.alarms).toEqual(["setAlarm"]);
    reset(count);
    const again = ticketCall("add_comment", { ticket_id: ticket, body: "again" }, "k-count-c2");
    const next = await measure(count, run, again);
    expect(next.status).toBe(200);
    expect(next.after.alarms).toEqual([]);
    // No object shared by the tenant's runs is on a later call's path.
    expect(next.after).toMatchObject({ claim: [], tenant: [] });
  });

  it("a mutation under a tenant-wide target rule: one claim step on the target's own object, beside the run's", async () => {
    const count = counter();
    const target = `T-${crypto.randomUUID()}`;
    const run = newRun();
    const claims = claimObjectName({ tenant: "default", tool: "create_ticket", target });
    await count.watch("TARGET_CLAIMS", claims);
    const call = ticketCall("create_ticket", { ticket_id: target }, "k-count-create");
    const m = await measure(count, run, call);
    expect(m.status).toBe(200);
    // The claim is the claim object's one step: nothing is sent to it after the answer.
    expect(m.before).toMatchObject({
      claim: ["claim"],
      run: ["propose", "settle"],
      cache: [],
    });
    expect(m.after.claim).toEqual(["claim"]);
    // One transaction in the claim object, two in the run.
    expect(m.before.transactions).toBe(3);
    expect(m.before.upstream).toBe(1);
    // The one alarm write is the new run's end: the claim sets none.
    expect(m.after.alarms).toEqual(["setAlarm"]);
    // The tenant's own object is asked only for the new run, never about the claim.
    expect(m.after.tenant).toEqual(["openRun"]);
    // The claim and the run's decision are asked together: the call waits for two object
    // steps, not three.
    expect(m.before.timeline.slice(0, 4).toSorted()).toEqual([
      "end claim.claim",
      "end run.propose",
      "start claim.claim",
      "start run.propose",
    ]);
    expect(m.before.timeline.slice(0, 2).toSorted()).toEqual([
      "start claim.claim",
      "start run.propose",
    ]);
    const settle = m.before.timeline.indexOf("start run.settle");
    expect(m.before.timeline.slice(settle)).toContain("end run.settle");
  });
});
