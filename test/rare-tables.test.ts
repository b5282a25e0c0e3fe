import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { within } from "../src/ledger/kept.ts";
import { RARE_RUN_TABLES } from "../src/ledger/migrations.ts";
import { ensureRareTables, hasRareTables, rareTablesKept } from "../src/ledger/rare-tables.ts";
import { urgentTicket } from "./approvals/helpers.ts";
import { get, json, newRun, propose, runLedger, ticketCall } from "./helpers.ts";

/** The run's tables, as SQLite lists them. */
async function tablesOf(run: string): Promise<string[]> {
  return runInDurableObject(runLedger(run), (_i, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((r) => r.name),
  );
}

/** Whether every rare table is among `tables` (true), none is (false), or some are (null). */
function rarePresent(tables: string[]): boolean | null {
  const present = RARE_RUN_TABLES.filter((t) => tables.includes(t)).length;
  return present === RARE_RUN_TABLES.length ? true : present === 0 ? false : null;
}

describe("the run's rare tables, built at their first write", () => {
  it("a run whose calls ask no person has none, and every read of them answers empty", async () => {
    const run = newRun("rare");
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const ticket = ticketCall(
      "create_ticket",
      { ticket_id: `T-${crypto.randomUUID()}` },
      "k-rare-1",
    );
    expect((await propose(run, ticket)).status).toBe(200);
    const tables = await tablesOf(run);
    expect(rarePresent(tables)).toBe(false);
    expect(tables).toContain("audit");

    const approvals = await get(`/v1/runs/${run}/approvals`);
    expect(approvals.status).toBe(200);
    expect(await json(approvals)).toMatchObject({ approvals: [] });
    const escalations = await get(`/v1/runs/${run}/escalations?status=all`);
    expect(escalations.status).toBe(200);
    expect(await json(escalations)).toMatchObject({ escalations: [] });
    const segments = await get(`/v1/runs/${run}/audit/segments`);
    expect(segments.status).toBe(200);
    expect(await json(segments)).toMatchObject({ segments: [] });
    const audit = await json<{ entries: unknown[] }>(await get(`/v1/runs/${run}/audit`));
    expect(audit.entries).toHaveLength(3);
    expect(await json(await get(`/v1/runs/${run}/audit/verify`))).toMatchObject({ ok: true });
    expect((await get(`/v1/runs/${run}`)).status).toBe(200);
    // Reading built nothing.
    expect(rarePresent(await tablesOf(run))).toBe(false);
  });

  it("a call that asks a person builds them all in its own step, and its approval is kept", async () => {
    const run = newRun("rare-ask");
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const asked = await propose(run, urgentTicket("k-rare-ask-1"));
    expect(asked.status).toBe(202);
    const { approval_id } = await json<{ approval_id: string }>(asked);
    expect(rarePresent(await tablesOf(run))).toBe(true);
    const listed = await json<{ approvals: { approval_id: string; status: string }[] }>(
      await get(`/v1/runs/${run}/approvals`),
    );
    expect(listed.approvals).toEqual([expect.objectContaining({ approval_id, status: "pending" })]);
  });

  it("a transaction that fails after building them forgets it, so the next write builds them", async () => {
    const run = newRun("rare-rollback");
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const seen = await runInDurableObject(runLedger(run), (_i, state) => {
      const { storage } = state;
      const sql = storage.sql;
      const before = hasRareTables(sql);
      const failing = () =>
        within(storage, () => {
          ensureRareTables(sql);
          throw new Error("after the build");
        }, [rareTablesKept(sql)]);
      expect(failing).toThrow("after the build");
      const afterFailure = hasRareTables(sql);
      within(storage, () => ensureRareTables(sql), [rareTablesKept(sql)]);
      return { before, afterFailure, after: hasRareTables(sql) };
    });
    expect(seen).toEqual({ before: false, afterFailure: false, after: true });
    expect(rarePresent(await tablesOf(run))).toBe(true);
  });
});
