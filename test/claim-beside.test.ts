import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../demo/contracts/index.ts";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import worker from "../demo/worker.ts";
import { buildApp } from "../src/app.ts";
import { loadFence } from "../src/core/policy.ts";
import { decide, pendingOf, urgentTicket } from "./approvals/helpers.ts";
import {
  demoTicket,
  json,
  newRun,
  post,
  propose,
  proposeThrough,
  runLedger,
  runStatus,
  ticketCall,
} from "./helpers.ts";

/**
 * A tenant-wide target is claimed while the run decides (src/http/calls.ts): when the run
 * admits a call whose claim was refused, the run takes the call back before it reaches the tool.
 */

const newTicketId = () => `T-${crypto.randomUUID()}`;
const key = (label: string) => `k-${label}-${crypto.randomUUID()}`;

function create(run: string, ticketId: string, k: string) {
  return propose(run, ticketCall("create_ticket", { ticket_id: ticketId }, k));
}

/** The run's audit entries as [decision, reason, of]. */
async function auditOf(run: string) {
  const page = await runLedger(run).audit(0, 100);
  const entries = page?.kind === "entries" ? page.entries : [];
  return entries.map((e) => [e.decision, e.reason, e.of === null ? null : "of"]);
}

describe("a claim refused beside an admitting run", () => {
  it("is taken back: charge, tool use and key given back, the open entry closed as refused", async () => {
    const ticket = newTicketId();
    expect((await create(newRun(), ticket, key("holder"))).status).toBe(200);
    const run = newRun();
    const k = key("second");
    const refused = await create(run, ticket, k);
    expect(refused.status).toBe(403);
    const body = await json<{ reason: string; budget: { mutations: { used: number } } }>(refused);
    expect(body.reason).toBe("target_cap_exhausted");
    expect(body.budget.mutations.used).toBe(0);
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(0);
    expect(status.budget.paid_calls.used).toBe(0);
    expect(status.tool_calls.create_ticket ?? 0).toBe(0);
    expect(status.decisions).toEqual({ block: 1 });
    expect(await auditOf(run)).toEqual([
      ["pending", null, null],
      ["block", "target_cap_exhausted", "of"],
    ]);
    // The key was dropped with the call: the same key is decided afresh, not held or replayed.
    const retry = await create(run, ticket, k);
    expect(retry.status).toBe(403);
    expect(await json(retry)).toMatchObject({ reason: "target_cap_exhausted" });
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    // Nothing reached the tickets service for the refused run: the ticket is the holder's.
    expect((await demoTicket(ticket)).status).toBe(200);
  });

  it("leaves the run's budget whole for the calls after it", async () => {
    const ticket = newTicketId();
    expect((await create(newRun(), ticket, key("holder"))).status).toBe(200);
    const run = newRun();
    await propose(run, { tool: "noop", args: {} });
    const { limit } = (await runStatus(run)).budget.mutations;
    for (let i = 0; i < limit + 1; i += 1) {
      expect((await create(run, ticket, key(`blocked${i}`))).status).toBe(403);
    }
    for (let i = 0; i < limit; i += 1) {
      expect((await create(run, newTicketId(), key(`fresh${i}`))).status).toBe(200);
    }
    const over = await create(run, newTicketId(), key("over"));
    expect(await json(over)).toMatchObject({ reason: "budget_exhausted" });
  });

  it("gives back the approval the call spent, for the next call of the same payload", async () => {
    const ticketId = newTicketId();
    const run = newRun();
    const call = urgentTicket(key("urgent"), ticketId);
    const pending = await pendingOf(await propose(run, call));
    expect((await decide(run, pending.approval_id, "approve")).status).toBe(200);
    // Another run takes the ticket while this one waits for a person.
    expect((await create(newRun(), ticketId, key("taker"))).status).toBe(200);
    const refused = await propose(run, call);
    expect(await json(refused)).toMatchObject({ reason: "target_cap_exhausted" });
    const approvals = (await runLedger(run).approvals(null)) ?? [];
    expect(approvals.map((a) => [a.approval_id, a.status, a.consumed_by_call])).toEqual([
      [pending.approval_id, "approved", null],
    ]);
  });

  it("lets the run's own refusal stand when the claim is refused too", async () => {
    const ticket = newTicketId();
    expect((await create(newRun(), ticket, key("holder"))).status).toBe(200);
    const run = newRun();
    await propose(run, { tool: "noop", args: {} });
    await post(`/v1/runs/${run}/halt`);
    expect(await json(await create(run, ticket, key("halted")))).toMatchObject({
      reason: "run_halted",
    });
  });

  it("withdraws the admitted call when the claim object fails, and answers 500", async () => {
    const failing = {
      getByName: () => ({
        claim: () => Promise.reject(new Error("the claim object is unreachable")),
        release: () => Promise.resolve(),
      }),
    };
    const bindings = { ...env, TARGET_CLAIMS: failing } as unknown as Env;
    const run = newRun();
    const k = key("failing");
    const call = ticketCall("create_ticket", { ticket_id: newTicketId() }, k);
    const res = await proposeThrough(worker, bindings, run, call);
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({ reason: "internal_error" });
    expect(await auditOf(run)).toEqual([
      ["pending", null, null],
      ["retry", "internal_error", "of"],
    ]);
    expect((await runStatus(run)).budget.mutations.used).toBe(0);
    // The key is free again: with the claim object back, the same call goes through.
    expect((await propose(run, call)).status).toBe(200);
  });

  it("asks first for a tool the fence answers itself: its one ledger step cannot be taken back", async () => {
    const tools = {
      ...policy.tools,
      noop: { per_target: { arg: "note", max: 1, scope: "tenant" } },
    };
    const loaded = loadFence({ ...policy, tools }, CONTRACTS);
    if (!loaded.ok) throw new Error(loaded.error.join("; "));
    const app = buildApp(loaded.value);
    const call = { tool: "noop", args: { note: `once-${crypto.randomUUID()}` } };
    expect((await proposeThrough(app, env, newRun(), call)).status).toBe(200);
    const run = newRun();
    const refused = await proposeThrough(app, env, run, call);
    expect(await json(refused)).toMatchObject({ reason: "target_cap_exhausted" });
    // One entry, the refusal: the tool's answer was never recorded as applied.
    expect(await auditOf(run)).toEqual([["block", "target_cap_exhausted", null]]);
  });
});
