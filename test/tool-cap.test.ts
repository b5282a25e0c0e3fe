import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../src/core/canonical.ts";
import { json, newRun, propose, put, runStatus, seedTicket, ticketCall } from "./helpers.ts";

/** A log query no other test asks, so the result cache never answers it. */
const logs = (i: number) => ({
  tool: "fetch_service_logs",
  args: { service: `svc-${i}-${crypto.randomUUID().slice(0, 8)}`, window: "5m" },
});

describe("per-tool caps", () => {
  it("stops a tool at its per-run cap while other tools and the budget go on", async () => {
    const run = newRun();
    await put(`/v1/runs/${run}`, { tools: { fetch_service_logs: { max_calls_per_run: 2 } } });
    expect((await propose(run, logs(1))).status).toBe(200);
    expect((await propose(run, logs(2))).status).toBe(200);
    const third = await propose(run, logs(3));
    expect(third.status).toBe(403);
    expect(await json(third)).toMatchObject({ decision: "block", reason: "tool_cap_exhausted" });
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const status = await runStatus(run);
    expect(status.budget.paid_calls.used).toBe(2);
    expect(status.tool_calls).toEqual({
      fetch_service_logs: 2,
      noop: 1,
    });
  });

  it("charges a tool's cap once per idempotency key", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    await put(`/v1/runs/${run}`, { tools: { add_comment: { max_calls_per_run: 1 } } });
    const first = ticketCall("add_comment", { ticket_id: ticket, body: "one" }, "k-toolcap-0001");
    expect((await propose(run, first)).status).toBe(200);
    const retry = await propose(run, first);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    const other = ticketCall("add_comment", { ticket_id: ticket, body: "two" }, "k-toolcap-0002");
    expect(await json(await propose(run, other))).toMatchObject({ reason: "tool_cap_exhausted" });
  });

  it("applies the shipped cap of the policy file to a run opened without limits", async () => {
    const run = newRun();
    await propose(run, { tool: "noop", args: {} });
    expect((await runStatus(run)).limits.tools).toEqual({
      add_comment: { max_calls_per_run: 10 },
      fetch_service_logs: { max_calls_per_run: 20 },
    });
  });

  it("neither caps nor counts a call answered from the cache, which never reaches the tool", async () => {
    const run = newRun();
    const ref = { tenant: "default", runId: run };
    const stub = env.RUN_LEDGER.getByName(`default/${run}`);
    await stub.open(ref, { tools: { fetch_service_logs: { max_calls_per_run: 1 } } }, true);
    const args = { service: "api", window: "5m" };
    const proposal = async (cached: boolean) => ({
      callId: crypto.randomUUID(),
      tool: "fetch_service_logs",
      form: "canonical",
      effect: "read" as const,
      paid: !cached,
      key: null,
      fingerprint: await fingerprint("fetch_service_logs", args),
      target: null,
      leaseMs: 60_000,
      args: "{}",
      outcome: cached
        ? {
            decision: "cached" as const,
            reason: null,
            status: 200,
            body: "{}",
            cache: "hit-kv" as const,
          }
        : null,
      evidence: { contentType: "application/json", payload: "{}", truncated: false },
    });
    expect((await stub.propose(ref, await proposal(true))).kind).toBe("admit");
    expect((await stub.propose(ref, await proposal(false))).kind).toBe("admit");
    expect((await stub.propose(ref, await proposal(true))).kind).toBe("admit");
    const over = await stub.propose(ref, await proposal(false));
    expect(over.kind === "refuse" && over.refusal.reason).toBe("tool_cap_exhausted");
    expect((await runStatus(run)).tool_calls).toEqual({ fetch_service_logs: 1 });
  });

  it("serves a cache hit of a tool whose cap is spent, since it never reaches the tool", async () => {
    const run = newRun();
    await put(`/v1/runs/${run}`, { tools: { fetch_service_logs: { max_calls_per_run: 1 } } });
    const service = `svc-${crypto.randomUUID().slice(0, 8)}`;
    const query = { tool: "fetch_service_logs", args: { service, window: "5m" } };
    expect((await propose(run, query)).status).toBe(200);
    const hit = await propose(run, query);
    expect(hit.status).toBe(200);
    expect(hit.headers.get("X-Cache")).toMatch(/^hit-/);
    const other = { tool: "fetch_service_logs", args: { service, window: "1h" } };
    expect(await json(await propose(run, other))).toMatchObject({ reason: "tool_cap_exhausted" });
    expect((await runStatus(run)).tool_calls).toEqual({ fetch_service_logs: 1 });
  });
});
