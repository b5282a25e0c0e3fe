import { describe, expect, it } from "vitest";
import { editRun, get, json, newRun, post, propose, runLedger, verifyAudit } from "../helpers.ts";

interface Entry {
  seq: number;
  decision: string;
  reason: string | null;
  tool: string | null;
  content_type: string | null;
  payload: string;
}

/** A comment of about 60 KB: past the contract's length, so the gate alone would refuse it. */
function bulkyComment(i: number) {
  return {
    tool: "add_comment",
    args: { ticket_id: "T-1", body: "x".repeat(60_000) },
    idempotency_key: `k-bulk-${i}`,
  };
}

async function entries(run: string): Promise<Entry[]> {
  return (await json<{ entries: Entry[] }>(await get(`/v1/runs/${run}/audit?limit=1000`))).entries;
}

describe("calls of a run that ended", () => {
  it("are refused for the halt before the contract is checked, and keep no body", async () => {
    const run = newRun();
    expect((await propose(run, { tool: "noop", args: { note: "before" } })).status).toBe(200);
    expect((await post(`/v1/runs/${run}/halt?reason=flood`)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => propose(run, bulkyComment(i))),
    );
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ decision: "block", reason: "run_halted" });
    }
    const junk = await propose(run, "{ not json", { contentType: "text/plain" });
    expect(await json(junk)).toMatchObject({ reason: "run_halted" });
    const log = await entries(run);
    const after = log.filter((e) => e.reason === "run_halted");
    expect(after).toHaveLength(7);
    for (const e of after) expect([e.content_type, e.payload]).toEqual([null, ""]);
    // The call made while the run was open keeps its body.
    expect(log[0]?.payload).toContain("before");
    expect((await verifyAudit(run)).ok).toBe(true);
  });

  it("are refused for the deadline before the contract is checked, and keep no body", async () => {
    const run = newRun();
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    await editRun(runLedger(run), "deadline_at = ?", Date.now() - 1);
    const res = await propose(run, bulkyComment(0));
    expect(await json(res)).toMatchObject({ reason: "run_deadline_exceeded" });
    const last = (await entries(run)).at(-1);
    expect(last).toMatchObject({
      reason: "run_deadline_exceeded",
      content_type: null,
      payload: "",
    });
  });
});
