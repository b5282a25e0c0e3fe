import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { get, json, newRun, post, propose, runLedger } from "./helpers.ts";

/** The tables in the run's object's storage, read from inside the object. */
function tablesOf(run: string): Promise<string[]> {
  return runInDurableObject(runLedger(run), (_, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((r) => r.name),
  );
}

describe("a run never seen", () => {
  it("is 404 to every read, and the reads leave no storage behind", async () => {
    const run = newRun("unseen");
    for (const path of [
      `/v1/runs/${run}`,
      `/v1/runs/${run}/audit`,
      `/v1/runs/${run}/audit/head`,
      `/v1/runs/${run}/audit/segments`,
      `/v1/runs/${run}/approvals`,
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    expect(await tablesOf(run)).toEqual([]);
  });

  it("is not halted by a mistyped id: 404, and nothing is written", async () => {
    const run = newRun("unseen");
    const halted = await post(`/v1/runs/${run}/halt?reason=typo`);
    expect(halted.status).toBe(404);
    expect(await json(halted)).toMatchObject({ reason: "not_found" });
    expect(await tablesOf(run)).toEqual([]);
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  });

  it("is halted before its first call when pre_halt=true asks for it", async () => {
    const run = newRun("unseen");
    expect((await post(`/v1/runs/${run}/halt?reason=x&pre_halt=yes`)).status).toBe(400);
    const halted = await post(`/v1/runs/${run}/halt?reason=pre-emptive&pre_halt=true`);
    expect(halted.status).toBe(200);
    expect(await json(halted)).toMatchObject({ status: "halted", in_flight: [] });
    const call = await propose(run, { tool: "noop", args: {} });
    expect(call.status).toBe(403);
    expect(await json(call)).toMatchObject({ reason: "run_halted" });
  });

  it("keeps its storage once written, as any run", async () => {
    const run = newRun("seen");
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect(await tablesOf(run)).toContain("audit");
  });
});
