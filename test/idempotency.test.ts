import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FENCE } from "../demo/fence.ts";
import { fingerprint } from "../src/core/canonical.ts";
import { demoTicket, json, newRun, propose, runStatus, seedTicket, ticketCall } from "./helpers.ts";

async function commentsOn(ticket: string): Promise<number> {
  const body = await json<{ ticket: { comments: unknown[] } }>(await demoTicket(ticket));
  return body.ticket.comments.length;
}

describe("idempotency keys", () => {
  it("refuses a key reused with a different payload", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const first = await propose(
      run,
      ticketCall("add_comment", { ticket_id: ticket, body: "one" }, "k-reuse-001"),
    );
    const second = await propose(
      run,
      ticketCall("add_comment", { ticket_id: ticket, body: "two" }, "k-reuse-001"),
    );
    expect(first.status).toBe(200);
    expect(second.status).toBe(422);
    expect(await json(second)).toMatchObject({
      decision: "block",
      reason: "idempotency_key_reused",
    });
    expect(await commentsOn(ticket)).toBe(1);
  });

  it("takes the key from the Idempotency-Key header as well as the body", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const call = { tool: "add_comment", args: { ticket_id: ticket, body: "via header" } };
    const headers = { "Idempotency-Key": "k-header-0001" };
    expect((await propose(run, call, { headers })).status).toBe(200);
    const again = await propose(run, call, { headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await commentsOn(ticket)).toBe(1);
  });

  it("runs the handler once for 20 concurrent calls with the same key", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const call = ticketCall("add_comment", { ticket_id: ticket, body: "once" }, "k-concurrent-1");
    const answers = await Promise.all(Array.from({ length: 20 }, () => propose(run, call)));
    const bodies = await Promise.all(answers.map((r) => json(r)));
    const applied = bodies.filter((b) => b.decision === "applied");
    const others = bodies.filter((b) => b.decision !== "applied");
    expect(applied).toHaveLength(1);
    for (const b of others) {
      expect(["replayed", "retry"]).toContain(b.decision);
      if (b.decision === "retry") expect(b.reason).toBe("idempotency_key_in_use");
    }
    expect(await commentsOn(ticket)).toBe(1);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
  });

  it("replays after the ledger object restarts, without running the tool again", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const call = ticketCall("add_comment", { ticket_id: ticket, body: "durable" }, "k-evicted-01");
    const first = await json(await propose(run, call));
    await evictDurableObject(env.RUN_LEDGER.getByName(`default/${run}`));
    const res = await propose(run, call);
    expect(res.headers.get("Idempotent-Replayed")).toBe("true");
    const again = await json(res);
    expect(again.decision).toBe("replayed");
    expect(again.result).toEqual(first.result);
    expect(await commentsOn(ticket)).toBe(1);
    expect((await runStatus(run)).budget.mutations.used).toBe(1);
  });

  it("lets a key whose worker died be retried once its lease expires, without a new charge, when its upstream honours it", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    const args = { ticket_id: ticket, body: "after a crash" };
    const stub = env.RUN_LEDGER.getByName(`default/${run}`);
    const ref = { tenant: "default", runId: run };
    // A worker takes the key and dies before it settles.
    const admitted = await stub.propose(ref, {
      callId: "crashed-call",
      tool: "add_comment",
      form: "canonical",
      effect: "mutate",
      paid: true,
      key: "k-crashed-01",
      // As add_comment's contract says: the demo's ticket desk honours the key.
      upstreamIdempotent: true,
      fingerprint: await fingerprint("add_comment", args),
      target: null,
      leaseMs: 60_000,
      args: "{}",
      outcome: null,
      evidence: { contentType: "application/json", payload: "{}", truncated: false },
    });
    expect(admitted.kind).toBe("admit");
    const call = ticketCall("add_comment", args, "k-crashed-01");
    const wedged = await propose(run, call);
    expect(wedged.status).toBe(409);
    expect(await json(wedged)).toMatchObject({
      decision: "retry",
      reason: "idempotency_key_in_use",
    });
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE idempotency_key SET lease_expires_at = 0");
    });
    const retried = await propose(run, call);
    expect(retried.status).toBe(200);
    expect((await json(retried)).decision).toBe("applied");
    expect(await commentsOn(ticket)).toBe(1);
    const status = await runStatus(run);
    expect(status.budget.mutations.used).toBe(1);
    // The abandoned attempt is recorded as abandoned, not left pending.
    expect(status.decisions.pending).toBeUndefined();
  });

  it("refuses a mutation without an idempotency key", async () => {
    const run = newRun();
    const res = await propose(run, { tool: "create_ticket", args: { ticket_id: "T-nokey" } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "idempotency_key_missing" });
  });

  it("drops keys after the retention period", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    await propose(
      run,
      ticketCall("add_comment", { ticket_id: ticket, body: "old" }, "k-expiring-1"),
    );
    const stub = env.RUN_LEDGER.getByName(`default/${run}`);
    const seen = await runInDurableObject(stub, async (instance, state) => {
      const at = await state.storage.getAlarm();
      const due = state.storage.sql
        .exec<{ key: number; end: number }>(
          "SELECT k.expires_at AS key, r.deadline_at AS end FROM idempotency_key k, run r",
        )
        .one();
      state.storage.sql.exec("UPDATE idempotency_key SET expires_at = 0");
      await instance.alarm();
      return { at, due };
    });
    // The call settled, so its lease no longer needed the alarm: it was moved to the next
    // thing due, the key's expiry a retention period later or the run's deadline (when the
    // archive writes its log), whichever is first; the run does not wake for nothing meanwhile.
    expect(seen.due.key).toBeGreaterThan(
      Date.now() + FENCE.policy.idempotency_retention_ms - 60_000,
    );
    expect(seen.at).toBe(Math.min(seen.due.key, seen.due.end));
    const keys = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM idempotency_key").one(),
    );
    expect(keys.n).toBe(0);
  });
});
