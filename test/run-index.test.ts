import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { callerWith, newRun } from "./helpers.ts";

/** The tenant's index rows, read from its TenantIndex's storage. */
async function indexRows(tenant: string): Promise<{ run_id: string; created_at: number }[]> {
  return runInDurableObject(env.TENANT_INDEX.getByName(tenant), (_o, state) =>
    state.storage.sql
      .exec<{ run_id: string; created_at: number }>("SELECT run_id, created_at FROM run_index")
      .toArray(),
  );
}

/** When the run's row says it was indexed. */
async function indexedAt(tenant: string, run: string): Promise<number | null> {
  return runInDurableObject(
    env.RUN_LEDGER.getByName(`${tenant}/${run}`),
    (_o, state) =>
      state.storage.sql.exec<{ at: number | null }>("SELECT indexed_at AS at FROM run").one().at,
  );
}

// The index is written after the call's answer (no call waits on the tenant's object), so the
// tests wait for it, briefly.
const eventually = { timeout: 2_000, interval: 20 };

describe("the tenant's run index", () => {
  it("lists a run from its first call, newest first, and only the tenant's own", async () => {
    const owner = await callerWith({ role: "operator" });
    const other = await callerWith({ role: "operator" });
    const [first, second] = [newRun(), newRun()];
    await owner.propose(first, { tool: "noop", args: {} });
    await owner.propose(second, { tool: "noop", args: {} });
    await other.propose(newRun(), { tool: "noop", args: {} });
    await vi.waitFor(async () => {
      const listed = await env.TENANT_INDEX.getByName(owner.tenant).runs(10);
      expect(listed.map((r) => r.run_id)).toEqual([second, first]);
    }, eventually);
  });

  it("is written once per run, not once per call, and marked by the run's next write", async () => {
    const owner = await callerWith({ role: "operator" });
    const run = newRun();
    await owner.propose(run, { tool: "noop", args: {} });
    await vi.waitFor(async () => {
      expect((await indexRows(owner.tenant)).map((r) => r.run_id)).toEqual([run]);
    }, eventually);
    // The mark costs no transaction of its own: the run's next write carries it.
    const at = await vi.waitFor(async () => {
      await owner.propose(run, { tool: "noop", args: {} });
      const indexed = await indexedAt(owner.tenant, run);
      expect(indexed).not.toBeNull();
      return indexed;
    }, eventually);
    await owner.propose(run, { tool: "noop", args: {} });
    await owner.propose(run, { tool: "no_such_tool", args: {} });
    expect(await indexedAt(owner.tenant, run)).toBe(at);
    expect((await indexRows(owner.tenant)).map((r) => r.run_id)).toEqual([run]);
  });

  it("indexes a run opened or refused before any call was admitted", async () => {
    const owner = await callerWith({ role: "operator" });
    const [opened, refused] = [newRun(), newRun()];
    expect((await owner.put(`/v1/runs/${opened}`, {})).status).toBe(201);
    expect((await owner.propose(refused, { tool: "no_such_tool", args: {} })).status).toBe(422);
    await vi.waitFor(async () => {
      const ids = (await indexRows(owner.tenant)).map((r) => r.run_id).sort();
      expect(ids).toEqual([opened, refused].sort());
    }, eventually);
  });
});
