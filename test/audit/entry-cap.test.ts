import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { json, newRun, propose, runLedger, runStatus } from "../helpers.ts";

const EVIDENCE = { contentType: "application/json", payload: "x".repeat(200), truncated: false };

describe("a run whose log holds its entry cap", () => {
  it("counts later refusals per reason instead of appending them, and still appends calls it admits", async () => {
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
    for (let i = 0; i < 5; i++) await record(cap + i);
    const junk = await propose(run, "{ not json", { contentType: "text/plain" });
    expect(await json(junk)).toMatchObject({ reason: "malformed_payload" });
    expect((await stub.auditHead())?.seq).toBe(cap);
    expect((await runStatus(run)).refusals_counted).toEqual({
      contract_violation: 5,
      malformed_payload: 1,
    });
    // An admitted call is appended all the same: its effect must be on the record.
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await stub.auditHead())?.seq).toBe(cap + 1);
  }, 60_000);
});
