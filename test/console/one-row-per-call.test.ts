import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../src/core/canonical.ts";
import { auditPage, DEV_KEY, newRun, propose, seedTicket } from "../helpers.ts";
import { signedIn } from "./browser.ts";

/** The timeline's call rows: each `<tbody>` with its id and decision. */
function rowsOf(page: string): [string, string][] {
  const rows = page.matchAll(/<tbody id="(e-\d+)"[^>]*data-decision="([a-z_]+)"/g);
  return [...rows].map((m) => [m[1] ?? "", m[2] ?? ""]);
}

/** Admit a read of `run` that no worker settles: it stays open. */
async function admitOpen(run: string) {
  const args = { service: "auth", window: "5m" };
  const answer = await env.RUN_LEDGER.getByName(`default/${run}`).propose(
    { tenant: "default", runId: run },
    {
      callId: crypto.randomUUID(),
      tool: "fetch_service_logs",
      form: "canonical",
      effect: "read",
      paid: true,
      key: null,
      fingerprint: await fingerprint("fetch_service_logs", args),
      args: JSON.stringify(args),
      target: null,
      leaseMs: 60_000,
      outcome: null,
      evidence: { contentType: "application/json", payload: "{}", truncated: false },
    },
  );
  expect(answer.kind).toBe("admit");
}

describe("the console's timeline, one row per call", () => {
  it("puts a call's proposal and outcome on one line; the audit keeps both entries", async () => {
    const run = newRun("console-row");
    const ticket = await seedTicket();
    const read = { tool: "get_ticket", args: { ticket_id: ticket } };
    expect((await propose(run, read)).status).toBe(200);
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
    const audit = await auditPage(run);
    expect(audit.entries.map((e) => [e.seq, e.decision, e.of])).toEqual([
      [1, "pending", null],
      [2, "applied", 1],
      [3, "applied", null],
    ]);
    const browser = await signedIn(DEV_KEY);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(rowsOf(page)).toEqual([
      ["e-1", "applied"],
      ["e-3", "applied"],
    ]);
    expect(page).toContain('data-seq="1" data-last="2"');
    expect(page).not.toContain("open for");
    const ndjson = await (await browser.get(`/console/runs/${run}/audit.ndjson`)).text();
    expect(ndjson.trim().split("\n")).toHaveLength(3);
  });

  it("says a call is still open, and for how long", async () => {
    const run = newRun("console-open");
    await admitOpen(run);
    const browser = await signedIn(DEV_KEY);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(rowsOf(page)).toEqual([["e-1", "pending"]]);
    expect(page).toMatch(/open for \d+ (ms|s)/);
    const live = await (await browser.get(`/console/runs/${run}/live?after=0`)).text();
    expect(rowsOf(live)).toEqual([["e-1", "pending"]]);
  });
});
