import { describe, expect, it, vi } from "vitest";
import { pendingOf, urgentTicket } from "../approvals/helpers.ts";
import { callerWith, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

/** The header's count `label` on a page. */
function countOf(page: string, label: string): number {
  const found = new RegExp(`<span class="num">(\\d+)</span> ${label}`).exec(page);
  expect(found, label).not.toBeNull();
  return Number(found?.[1]);
}

describe("the runs page leads with what needs a person", () => {
  it("counts pending approvals, open escalations and halted runs in every page's header", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const [quiet, asking, escalated, halted] = [newRun(), newRun(), newRun(), newRun()];
    await operator.propose(quiet, { tool: "noop", args: {} });
    await pendingOf(await operator.propose(asking, urgentTicket("k-needs-approval")));
    const comment = {
      tool: "add_comment",
      args: { ticket_id: `T-${crypto.randomUUID()}`, body: "paged" },
      idempotency_key: "k-needs-escalation",
    };
    expect((await operator.propose(escalated, comment)).status).toBe(502);
    await operator.propose(halted, { tool: "noop", args: {} });
    await operator.post(`/v1/runs/${halted}/halt?reason=runaway`);
    // A run is indexed just after its first answer, so the list is waited for, briefly.
    await vi.waitFor(
      async () => {
        const page = await (await browser.get("/console/runs?sort=attention")).text();
        for (const run of [quiet, asking, escalated, halted]) expect(page).toContain(run);
        const quietAt = page.indexOf(quiet);
        for (const run of [asking, escalated, halted]) {
          expect(page.indexOf(run)).toBeLessThan(quietAt);
        }
      },
      { timeout: 2_000, interval: 20 },
    );
    for (const path of ["/console/runs", "/console/tools"]) {
      const page = await (await browser.get(path)).text();
      expect(countOf(page, "pending approvals")).toBe(1);
      expect(countOf(page, "open escalations")).toBe(1);
      expect(countOf(page, "halted")).toBe(1);
      expect(countOf(page, "near a limit")).toBe(0);
    }
    const needing = await (await browser.get("/console/runs?status=attention")).text();
    expect(needing).not.toContain(quiet);
    const approvals = await (await browser.get("/console/runs?status=approvals")).text();
    expect(approvals).toContain(asking);
    expect(approvals).not.toContain(escalated);
    const escalations = await (await browser.get("/console/runs?status=escalations")).text();
    expect(escalations).toContain(escalated);
    expect(escalations).not.toContain(halted);
  });

  it("marks an open run that has used most of its budget as near a limit", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    expect((await operator.put(`/v1/runs/${run}`, { max_mutations: 1 })).status).toBeLessThan(300);
    const ticket = {
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}`, title: "Disk full", priority: "high" },
      idempotency_key: "k-near-limit",
    };
    expect((await operator.propose(run, ticket)).status).toBe(200);
    await vi.waitFor(
      async () => {
        const page = await (await browser.get("/console/runs?status=near_limit")).text();
        expect(page).toContain(run);
        expect(countOf(page, "near a limit")).toBe(1);
      },
      { timeout: 2_000, interval: 20 },
    );
  });
});
