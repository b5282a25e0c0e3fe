import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/core/canonical.ts";
import type { LedgerProposal } from "../../src/ledger/protocol.ts";
import { postJson } from "../approvals/helpers.ts";
import {
  demoTicket,
  dev,
  json,
  newRun,
  propose,
  runStatus,
  seedTicket,
  ticketCall,
} from "../helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "{}", truncated: false };

/** A worker admits `p` in run `run` and dies: nothing ever settles it. */
async function admitAndDie(run: string, p: Partial<LedgerProposal> & { tool: string }) {
  const stub = env.RUN_LEDGER.getByName(`default/${run}`);
  const args = { service: "auth", window: "5m" };
  const answer = await stub.propose(
    { tenant: "default", runId: run },
    {
      callId: crypto.randomUUID(),
      form: "canonical",
      effect: "read",
      paid: true,
      key: null,
      fingerprint: await fingerprint(p.tool, args),
      args: JSON.stringify(args),
      target: null,
      leaseMs: 60_000,
      outcome: null,
      evidence: EVIDENCE,
      ...p,
    },
  );
  expect(answer.kind).toBe("admit");
  return stub;
}

type Ledger = DurableObjectStub<import("../../src/ledger/RunLedger.ts").RunLedger>;

/** Let every lease of the run run out, ringing no alarm. */
async function leasesLapse(stub: Ledger) {
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE open_call SET lease_expires_at = 1");
    state.storage.sql.exec("UPDATE idempotency_key SET lease_expires_at = ?", 1);
  });
}

/** Let every lease of the run run out, then ring its alarm as the runtime would. */
async function leasesRunOut(stub: Ledger) {
  await leasesLapse(stub);
  expect(await runDurableObjectAlarm(stub)).toBe(true);
}

/** The run's alarm and its end (deadline). */
async function alarmAndEnd(stub: Ledger) {
  return runInDurableObject(stub, async (_i, state) => ({
    alarm: await state.storage.getAlarm(),
    end: state.storage.sql.exec<{ end: number }>("SELECT deadline_at AS end FROM run").one().end,
  }));
}

describe("calls whose worker died", () => {
  it("settles a pending read as abandoned when its lease runs out, and keeps its charge", async () => {
    const run = newRun("abandon");
    const stub = await admitAndDie(run, { tool: "fetch_service_logs" });
    expect((await runStatus(run)).decisions).toEqual({ pending: 1 });
    await leasesRunOut(stub);
    const status = await runStatus(run);
    expect(status.decisions).toEqual({ abandoned: 1 });
    expect(status.budget.paid_calls.used).toBe(1);
    const audit = await json<{
      entries: { seq: number; decision: string; duration_ms: number; of: number | null }[];
    }>(await dev.get(`/v1/runs/${run}/audit`));
    // The pending entry stays as written; the alarm's verdict is a second entry of it.
    expect(audit.entries.map((e) => [e.seq, e.decision, e.of])).toEqual([
      [1, "pending", null],
      [2, "abandoned", 1],
    ]);
    expect(audit.entries[1]?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("lets the abandoned mutation's key run again once, without a second charge, when its upstream honours the key", async () => {
    const run = newRun("abandon");
    const ticket = await seedTicket();
    const args = { ticket_id: ticket, body: "after a crash" };
    const stub = await admitAndDie(run, {
      tool: "add_comment",
      effect: "mutate",
      key: "k-abandoned-1",
      fingerprint: await fingerprint("add_comment", args),
      upstreamIdempotent: true,
    });
    await leasesRunOut(stub);
    const retried = await propose(run, ticketCall("add_comment", args, "k-abandoned-1"));
    expect(await json(retried)).toMatchObject({ decision: "applied" });
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(1);
    expect(status.decisions).toEqual({ abandoned: 1, applied: 1 });
  });

  it("settles an abandoned mutation of an upstream that does not honour its key as upstream_outcome_unknown, never sent again", async () => {
    const run = newRun("abandon");
    const ticket = await seedTicket();
    const args = { ticket_id: ticket, body: "sent at most once" };
    const stub = await admitAndDie(run, {
      tool: "add_comment",
      effect: "mutate",
      key: "k-abandoned-2",
      fingerprint: await fingerprint("add_comment", args),
      upstreamIdempotent: false,
    });
    await leasesRunOut(stub);
    expect((await runStatus(run)).decisions).toEqual({ escalate: 1 });
    const retried = await propose(run, ticketCall("add_comment", args, "k-abandoned-2"));
    expect(retried.status).toBe(502);
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(retried)).toMatchObject({
      decision: "escalate",
      reason: "upstream_outcome_unknown",
    });
    expect(
      (await json<{ ticket: { comments: unknown[] } }>(await demoTicket(ticket))).ticket.comments,
    ).toEqual([]);
    // An operator who knows it did not act hands the key back: it runs once more.
    const listed = await json<{ escalations: { seq: number; note: string | null }[] }>(
      await dev.get(`/v1/runs/${run}/escalations`),
    );
    expect(listed.escalations).toHaveLength(1);
    expect(listed.escalations[0]?.note).toMatch(/^abandoned/);
    const seq = listed.escalations[0]?.seq ?? 0;
    const allowed = await postJson(`/v1/runs/${run}/escalations/${seq}`, {
      resolution: "retry_allowed",
      note: "the desk has no such comment",
    });
    expect(allowed.status).toBe(200);
    const again = await propose(run, ticketCall("add_comment", args, "k-abandoned-2"));
    expect(await json(again)).toMatchObject({ decision: "applied" });
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
  });

  it("settles it so too when the next call with its key finds it past its lease", async () => {
    const run = newRun("abandon");
    const ticket = await seedTicket();
    const args = { ticket_id: ticket, body: "taken over" };
    const stub = await admitAndDie(run, {
      tool: "add_comment",
      effect: "mutate",
      key: "k-abandoned-3",
      fingerprint: await fingerprint("add_comment", args),
      upstreamIdempotent: false,
    });
    await leasesLapse(stub);
    const retried = await propose(run, ticketCall("add_comment", args, "k-abandoned-3"));
    expect(retried.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(retried)).toMatchObject({ reason: "upstream_outcome_unknown" });
    expect(
      (await json<{ ticket: { comments: unknown[] } }>(await demoTicket(ticket))).ticket.comments,
    ).toEqual([]);
    const audit = await json<{ entries: { decision: string; reason: string | null }[] }>(
      await dev.get(`/v1/runs/${run}/audit`),
    );
    expect(audit.entries.map((e) => [e.decision, e.reason])).toEqual([
      ["pending", null],
      ["escalate", "upstream_outcome_unknown"],
      ["replayed", null],
    ]);
  });

  it("keeps an abandoned entry final when its worker settles late", async () => {
    const run = newRun("abandon");
    const stub = await admitAndDie(run, { tool: "fetch_service_logs", callId: "late-call" });
    await leasesRunOut(stub);
    const outcome = {
      decision: "applied" as const,
      reason: null,
      status: 200,
      body: "{}",
      cache: null,
    };
    await stub.settle(
      { tenant: "default", runId: run },
      { callId: "late-call", key: null, effect: "read", outcome, durationMs: 1 },
    );
    expect((await runStatus(run)).decisions).toEqual({ abandoned: 1 });
  });

  it("settles a lapsed entry before a read shows it, with no alarm rung", async () => {
    const run = newRun("abandon");
    await leasesLapse(await admitAndDie(run, { tool: "fetch_service_logs" }));
    const audit = await json<{ entries: { decision: string; of: number | null }[] }>(
      await dev.get(`/v1/runs/${run}/audit`),
    );
    expect(audit.entries.map((e) => [e.decision, e.of])).toEqual([
      ["pending", null],
      ["abandoned", 1],
    ]);
    // Settled once: the status read after it finds nothing more to settle.
    expect((await runStatus(run)).decisions).toEqual({ abandoned: 1 });
  });

  it("moves no alarm forward for a lease: the run's alarm stays at the run's end", async () => {
    const run = newRun("abandon");
    const stub = await admitAndDie(run, { tool: "fetch_service_logs", leaseMs: 60_000 });
    const { alarm, end } = await alarmAndEnd(stub);
    expect(alarm).toBe(end);
  });

  it("sets the alarm by the run's end for an open call of a run that had none", async () => {
    const run = newRun("abandon");
    const stub = await admitAndDie(run, { tool: "fetch_service_logs", callId: "first" });
    await runInDurableObject(stub, (_i, state) => state.storage.deleteAlarm());
    await admitAndDie(run, { tool: "fetch_service_logs", callId: "second", leaseMs: 60_000 });
    const { alarm, end } = await alarmAndEnd(stub);
    expect(alarm).toBe(end);
    // Ringing early, the alarm settles nothing still leased and is set again by the leases.
    await runDurableObjectAlarm(stub);
    const next = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    const leases = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql
        .exec<{ at: number }>("SELECT MAX(lease_expires_at) AS at FROM open_call")
        .one(),
    );
    expect(next).not.toBeNull();
    expect(next ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(leases.at);
    expect((await runStatus(run)).decisions).toEqual({ pending: 2 });
  });

  it("leaves an entry alone while its lease runs", async () => {
    const run = newRun("abandon");
    const stub = await admitAndDie(run, { tool: "fetch_service_logs" });
    await runDurableObjectAlarm(stub);
    expect((await runStatus(run)).decisions).toEqual({ pending: 1 });
  });
});
