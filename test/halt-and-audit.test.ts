import { describe, expect, it } from "vitest";
import {
  editRun,
  get,
  json,
  newRun,
  post,
  propose,
  runLedger,
  runStatus,
  seedTicket,
  ticketCall,
} from "./helpers.ts";

interface AuditPage {
  entries: {
    seq: number;
    decision: string;
    reason: string | null;
    tool: string | null;
    payload: string;
    of: number | null;
  }[];
  next_after: number | null;
}

describe("the kill switch and the audit log", () => {
  it("blocks the next call of a halted run", async () => {
    const run = newRun();
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const halted = await post(`/v1/runs/${run}/halt?reason=runaway`);
    expect(halted.status).toBe(200);
    expect(await json(halted)).toMatchObject({ status: "halted", halt_reason: "runaway" });
    const next = await propose(run, { tool: "noop", args: {} });
    expect(next.status).toBe(403);
    expect(await json(next)).toMatchObject({ decision: "block", reason: "run_halted" });
  });

  it("counts every call in the audit log, blocked ones included", async () => {
    const run = newRun();
    const ticket = await seedTicket();
    await propose(run, { tool: "noop", args: {} });
    await propose(run, "not json at all");
    await propose(run, { tool: "Create_Ticket", args: { ticket_id: ticket } });
    await propose(run, {
      tool: "fetch_service_logs",
      args: { service: "auth", window: "24 hours" },
    });
    await propose(run, ticketCall("add_comment", { ticket_id: ticket, body: "x" }, "k-audit-0001"));
    await propose(run, ticketCall("add_comment", { ticket_id: ticket, body: "x" }, "k-audit-0001"));
    await post(`/v1/runs/${run}/halt`);
    await propose(run, { tool: "noop", args: {} });
    const page = await json<AuditPage>(await get(`/v1/runs/${run}/audit`));
    // An admitted call that reached its tool is two entries: pending, then its outcome `of` it.
    expect(page.entries.map((e) => [e.seq, e.decision, e.reason, e.of])).toEqual([
      [1, "applied", null, null],
      [2, "block", "malformed_payload", null],
      [3, "block", "unknown_tool", null],
      [4, "block", "contract_violation", null],
      [5, "pending", null, null],
      [6, "applied", null, 5],
      [7, "replayed", null, null],
      [8, "halted", null, null],
      [9, "block", "run_halted", null],
    ]);
    // A body that is not a call is kept as its keyed digest only (audit_unparsed: "digest").
    expect(page.entries[1]?.payload).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const status = await runStatus(run);
    expect(status.decisions).toEqual({ applied: 2, block: 4, replayed: 1, halted: 1 });
  });

  it("pages the audit log and serves it as NDJSON", async () => {
    const run = newRun();
    for (let i = 0; i < 5; i++) await propose(run, { tool: "noop", args: { note: `n${i}` } });
    const first = await json<AuditPage>(await get(`/v1/runs/${run}/audit?limit=2`));
    expect(first.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.next_after).toBe(2);
    const rest = await json<AuditPage>(await get(`/v1/runs/${run}/audit?after=2&limit=10`));
    expect(rest.entries.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(rest.next_after).toBeNull();
    const nd = await get(`/v1/runs/${run}/audit?limit=3`, { Accept: "application/x-ndjson" });
    expect(nd.headers.get("Content-Type")).toBe("application/x-ndjson; charset=utf-8");
    expect(nd.headers.get("Link")).toBe('<?after=3&limit=3>; rel="next"');
    const lines = (await nd.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3]);
  });

  it("refuses an audit page with a bad cursor", async () => {
    const res = await get(`/v1/runs/${newRun()}/audit?after=-1`);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ reason: "malformed_payload" });
  });

  it("blocks calls once the run's deadline has passed", async () => {
    const run = newRun();
    await propose(run, { tool: "noop", args: {} });
    await editRun(runLedger(run), "deadline_at = ?", Date.now() - 1);
    const res = await propose(run, { tool: "noop", args: {} });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ decision: "block", reason: "run_deadline_exceeded" });
    expect((await runStatus(run)).status).toBe("expired");
  });

  it("answers 404 for a run never seen", async () => {
    const res = await get(`/v1/runs/${newRun()}`);
    expect(res.status).toBe(404);
  });
});
