import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../src/core/canonical.ts";
import {
  callerWith,
  demoTicket,
  json,
  newRun,
  post,
  propose,
  runStatus,
  seedTicket,
  ticketCall,
} from "./helpers.ts";

const newTicketId = () => `T-${crypto.randomUUID()}`;

function create(run: string, ticketId: string, key: string) {
  return propose(run, ticketCall("create_ticket", { ticket_id: ticketId }, key));
}

function comment(run: string, ticketId: string, key: string) {
  return propose(run, ticketCall("add_comment", { ticket_id: ticketId, body: "update" }, key));
}

const key = (label: string) => `k-${label}-${crypto.randomUUID()}`;

describe("one create per ticket", () => {
  it("blocks a second create of the same ticket in a run, but not comments or another ticket", async () => {
    const run = newRun();
    const ticket = newTicketId();
    expect((await create(run, ticket, key("c1"))).status).toBe(200);
    const again = await create(run, ticket, key("c2"));
    expect(again.status).toBe(403);
    expect(await json(again)).toMatchObject({ decision: "block", reason: "target_cap_exhausted" });
    expect((await comment(run, ticket, key("m1"))).status).toBe(200);
    expect((await create(run, newTicketId(), key("c3"))).status).toBe(200);
    // The blocked create cost nothing: two creates and one comment were charged.
    expect((await runStatus(run)).budget.mutations.used).toBe(3);
  });

  it("blocks the create in a second run of the tenant, where comments stay allowed", async () => {
    const ticket = newTicketId();
    expect((await create(newRun(), ticket, key("first"))).status).toBe(200);
    const second = newRun();
    const res = await create(second, ticket, key("second"));
    expect(res.status).toBe(403);
    const body = await json<{ reason: string; detail: string }>(res);
    expect(body.reason).toBe("target_cap_exhausted");
    expect(body.detail).toMatch(/across this tenant's runs/);
    expect((await comment(second, ticket, key("note"))).status).toBe(200);
  });

  it("lets exactly one of two runs racing to create the same ticket through", async () => {
    const ticket = newTicketId();
    const runs = Array.from({ length: 4 }, () => newRun());
    const answers = await Promise.all(runs.map((r, i) => create(r, ticket, key(`race${i}`))));
    const reasons = await Promise.all(
      answers.map(async (res) => (await json(res)).reason ?? "applied"),
    );
    expect(reasons.filter((r) => r === "applied")).toHaveLength(1);
    expect(reasons.filter((r) => r === "target_cap_exhausted")).toHaveLength(3);
    expect((await demoTicket(ticket)).status).toBe(200);
  });

  it("replays a retried create with the same key instead of blocking it", async () => {
    const run = newRun();
    const ticket = newTicketId();
    const k = key("same");
    expect((await create(run, ticket, k)).status).toBe(200);
    const retry = await create(run, ticket, k);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("gives the claim back when the run refuses the create", async () => {
    const ticket = newTicketId();
    const halted = newRun();
    await propose(halted, { tool: "noop", args: {} });
    await post(`/v1/runs/${halted}/halt`);
    const refused = await create(halted, ticket, key("halted"));
    expect(await json(refused)).toMatchObject({ reason: "run_halted" });
    expect((await create(newRun(), ticket, key("after"))).status).toBe(200);
  });

  it("counts the per-run target cap inside the run ledger's own step", async () => {
    const run = newRun();
    const stub = env.RUN_LEDGER.getByName(`default/${run}`);
    const ref = { tenant: "default", runId: run };
    const ticket = await seedTicket();
    const proposal = async (k: string) => ({
      callId: crypto.randomUUID(),
      tool: "create_ticket",
      form: "canonical",
      effect: "mutate" as const,
      paid: true,
      key: k,
      fingerprint: await fingerprint("create_ticket", { ticket_id: ticket, body: k }),
      target: ticket,
      leaseMs: 60_000,
      args: "{}",
      outcome: null,
      evidence: { contentType: "application/json", payload: "{}", truncated: false },
    });
    expect((await stub.propose(ref, await proposal("k-direct-0001"))).kind).toBe("admit");
    const second = await stub.propose(ref, await proposal("k-direct-0002"));
    expect(second.kind === "refuse" && second.refusal.reason).toBe("target_cap_exhausted");
  });

  it("keeps one tenant's claim on a ticket id from blocking another tenant", async () => {
    const ticket = newTicketId();
    const [a, b] = [await callerWith(), await callerWith()];
    const call = (k: string) => ticketCall("create_ticket", { ticket_id: ticket }, key(k));
    expect((await a.propose(newRun(), call("a"))).status).toBe(200);
    expect((await b.propose(newRun(), call("b"))).status).toBe(200);
    expect(await json(await a.propose(newRun(), call("a2")))).toMatchObject({
      reason: "target_cap_exhausted",
    });
  });
});
