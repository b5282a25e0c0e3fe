import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../src/core/audit-chain.ts";
import { type PublicJwk, type SignedHead, verifyHead } from "../src/core/audit-head.ts";
import {
  get,
  json,
  newRun,
  post,
  propose,
  runLedger,
  seedTicket,
  ticketCall,
  verifyAudit,
} from "./helpers.ts";
import { proposeTo, reply, UpstreamDouble } from "./upstream-double.ts";

/** A run whose log holds applied, replayed, cached, blocked, pending, abandoned and halted entries. */
async function busyRun(): Promise<string> {
  const run = newRun("evidence");
  const ticket = await seedTicket();
  const comment = ticketCall("add_comment", { ticket_id: ticket, body: "x" }, "k-evidence-01");
  await propose(run, { tool: "noop", args: {} });
  await propose(run, comment);
  await propose(run, comment);
  const logs = {
    tool: "fetch_service_logs",
    args: { service: `svc-${crypto.randomUUID().slice(0, 8)}`, window: "5m" },
  };
  await propose(run, logs);
  await propose(run, logs);
  await propose(run, "not json");
  await post(`/v1/runs/${run}/halt?reason=evidence`);
  await propose(run, { tool: "noop", args: {} });
  return run;
}

describe("the audit as evidence", () => {
  it("chains every kind of entry, and the NDJSON export verifies offline against a signed head", async () => {
    const run = await busyRun();
    const report = await verifyAudit(run);
    expect(report).toMatchObject({ ok: true });
    expect(report.entries).toBeGreaterThanOrEqual(9);
    const ndjson = await (
      await get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" })
    ).text();
    const entries = ndjson
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(verifyChain(entries, { tenant: "default", run })).toEqual({
      ok: true,
      entries: entries.length,
      head: report.head,
    });
    const head = await json<SignedHead>(await get(`/v1/runs/${run}/audit/head`));
    expect(head).toMatchObject({
      tenant: "default",
      run,
      seq: report.head?.seq,
      hash: report.head?.hash,
    });
    const { keys } = await json<{ keys: PublicJwk[] }>(
      await get("/.well-known/toolfence-audit-keys"),
    );
    expect(await verifyHead(head, keys)).toEqual({ ok: true });
  });

  it("chains retried, escalated and abandoned outcomes as second entries of their calls", async () => {
    const run = newRun("evidence");
    const timeout = new UpstreamDouble(
      () => new Promise((r) => setTimeout(() => r(Response.json({})), 1_000)),
    );
    await proposeTo(timeout, run, {
      tool: "charge_card",
      args: { account: "a-1", amount_cents: 1 },
      idempotency_key: "k-ev-retry-1",
    });
    await proposeTo(new UpstreamDouble(reply(409, {})), run, {
      tool: "charge_card",
      args: { account: "a-2", amount_cents: 1 },
      idempotency_key: "k-ev-escal-1",
    });
    const stub = runLedger(run);
    await stub.propose(
      { tenant: "default", runId: run },
      {
        callId: "died",
        args: "{}",
        tool: "slow_report",
        form: "canonical",
        effect: "read",
        paid: true,
        key: null,
        fingerprint: "f",
        target: null,
        leaseMs: 60_000,
        outcome: null,
        evidence: { contentType: "application/json", payload: "{}", truncated: false },
      },
    );
    await runInDurableObject(stub, (_i, s) =>
      s.storage.sql.exec("UPDATE open_call SET lease_expires_at = 1"),
    );
    await runDurableObjectAlarm(stub);
    const page = await json<{ entries: { seq: number; decision: string; of: number | null }[] }>(
      await get(`/v1/runs/${run}/audit`),
    );
    expect(page.entries.filter((e) => e.of !== null).map((e) => e.decision)).toEqual([
      "retry",
      "escalate",
      "abandoned",
    ]);
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: page.entries.length });
  });

  it.each([
    ["an edited column", "UPDATE audit SET tool = 'edited_tool' WHERE seq = 3", 3, "edited"],
    ["a deleted entry", "DELETE FROM audit WHERE seq = 4", 5, "missing"],
    [
      "an inserted entry",
      "UPDATE audit SET seq = seq + 1000 WHERE seq >= 4; UPDATE audit SET seq = seq - 999 WHERE seq >= 1004; INSERT INTO audit (seq, call_id, at, tool, form, decision, reason, status, idempotency_key, fingerprint, cache, duration_ms, mutations_used, paid_used, content_type, payload, payload_truncated, of, prev, hash) SELECT 4, call_id, at, tool, form, decision, reason, status, idempotency_key, fingerprint, cache, duration_ms, mutations_used, paid_used, content_type, payload, payload_truncated, of, prev, hash FROM audit WHERE seq = 3",
      5,
      "",
    ],
    [
      "swapped entries",
      "UPDATE audit SET seq = -1 WHERE seq = 2; UPDATE audit SET seq = 2 WHERE seq = 3; UPDATE audit SET seq = 3 WHERE seq = -1",
      2,
      "",
    ],
  ])("finds %s at the right seq", async (_what, sql, badSeq, problem) => {
    const run = await busyRun();
    expect(await verifyAudit(run)).toMatchObject({ ok: true });
    await runInDurableObject(runLedger(run), (_i, s) => {
      for (const statement of sql.split("; ")) s.storage.sql.exec(statement);
    });
    const report = await verifyAudit(run);
    expect(report.ok).toBe(false);
    expect(report.first_bad_seq).toBeLessThanOrEqual(badSeq);
    expect(report.problem).toContain(problem);
  });

  it("keeps one gap-free chain through 50 concurrent calls", async () => {
    const run = newRun("evidence");
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => propose(run, { tool: "noop", args: { note: `n${i}` } })),
    );
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 50, head: { seq: 50 } });
  });
});
