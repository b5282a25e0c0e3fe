import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { json, newRun, propose, runLedger, runStatus } from "../helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "x".repeat(200), truncated: false };

/** A new run whose log holds its entry cap, filled with `contract_violation`s of add_comment. */
async function filledRun() {
  const run = newRun("capped");
  const stub = runLedger(run);
  const ref = { tenant: "default", runId: run };
  const cap = FENCE.policy.max_audit_entries_per_run;
  const refusal = { reason: "contract_violation", detail: "generated" } as const;
  const record = (i: number) =>
    stub.record(ref, {
      callId: `call-${i}`,
      tool: "add_comment",
      form: "canonical",
      key: null,
      refusal,
      evidence: EVIDENCE,
    });
  for (let i = 0; i < cap; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, cap - i) }, (_, j) => record(i + j)));
  }
  expect((await stub.auditHead())?.seq).toBe(cap);
  return { run, stub, cap, record };
}

interface Entry {
  seq: number;
  tool: string | null;
  reason: string | null;
  payload: string;
}

async function entriesAfter(run: string, after: number): Promise<Entry[]> {
  const page = await runLedger(run).audit(after, 1_000);
  return page?.kind === "entries" ? (page.entries as Entry[]) : [];
}

describe("a run whose log holds its entry cap", () => {
  it("counts later refusals per reason instead of appending them, and still appends calls it admits", async () => {
    const { run, stub, cap, record } = await filledRun();
    for (let i = 0; i < 5; i++) await record(cap + i);
    const junk = await propose(run, "{ not json", { contentType: "text/plain" });
    expect(await json(junk)).toMatchObject({ reason: "malformed_payload" });
    // Past the cap, the first refusal of each reason and tool is appended, the rest counted.
    expect((await entriesAfter(run, cap)).map((e) => [e.reason, e.tool])).toEqual([
      ["contract_violation", "add_comment"],
      ["malformed_payload", null],
    ]);
    expect((await runStatus(run)).refusals_counted).toEqual({ contract_violation: 4 });
    // An admitted call is appended all the same: its effect must be on the record.
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await stub.auditHead())?.seq).toBe(cap + 3);
  }, 60_000);

  it("keeps, in full, the first refusal of each reason and tool past the cap: a flood cannot hide a refused delete_everything", async () => {
    const { run, cap, record } = await filledRun();
    for (let i = 0; i < 20; i++) await record(cap + i);
    const forged = { tool: "delete_everything", args: { scope: "all" } };
    expect(await json(await propose(run, forged))).toMatchObject({ reason: "unknown_tool" });
    const bad = { tool: "create_ticket", args: { ticket_id: 42 }, idempotency_key: "k-cap-00001" };
    expect(await json(await propose(run, bad))).toMatchObject({ reason: "contract_violation" });
    const kept = (await entriesAfter(run, cap)).slice(1);
    expect(kept.map((e) => [e.reason, e.tool])).toEqual([
      ["unknown_tool", "delete_everything"],
      ["contract_violation", "create_ticket"],
    ]);
    expect(JSON.parse(kept[0]?.payload ?? "")).toEqual(forged);
    // The same again is counted, not appended.
    await propose(run, forged);
    await propose(run, bad);
    expect((await entriesAfter(run, cap)).length).toBe(3);
    expect((await runStatus(run)).refusals_counted).toEqual({
      contract_violation: 20,
      unknown_tool: 1,
    });
  }, 60_000);

  it("keeps one entry past the cap for every name no contract has: the names are the agent's to choose", async () => {
    const { run, cap } = await filledRun();
    for (let i = 0; i < 30; i++) await propose(run, { tool: `drop_table_${i}`, args: {} });
    const kept = await entriesAfter(run, cap);
    expect(kept.map((e) => [e.reason, e.tool])).toEqual([["unknown_tool", "drop_table_0"]]);
    expect((await runStatus(run)).refusals_counted).toEqual({ unknown_tool: 29 });
  }, 60_000);
});
