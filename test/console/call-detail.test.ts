import { describe, expect, it } from "vitest";
import { decide, pendingOf, urgentTicket } from "../approvals/helpers.ts";
import { DEV_KEY, newRun, propose } from "../helpers.ts";
import { signedIn } from "./browser.ts";

/** The `<tbody>` of call `seq` on a run's page. */
function callOf(page: string, seq: number): string {
  const start = page.indexOf(`<tbody id="e-${seq}"`);
  expect(start).toBeGreaterThan(0);
  return page.slice(start, page.indexOf("</tbody>", page.indexOf("</details>", start)));
}

describe("a call's detail on the console", () => {
  it("shows an escalated call's decision and reason in words, its payload, and who closed it", async () => {
    const run = newRun("console-detail");
    const comment = {
      tool: "add_comment",
      args: { ticket_id: `T-${crypto.randomUUID()}`, body: "paged the owner" },
      idempotency_key: "k-console-detail",
    };
    expect((await propose(run, comment)).status).toBe(502);
    const browser = await signedIn(DEV_KEY);
    const before = callOf(await (await browser.get(`/console/runs/${run}`)).text(), 1);
    expect(before).toContain('data-decision="escalate"');
    expect(before).toContain("Escalated: a person has to look");
    expect(before).toContain("The tool rejected the call");
    expect(before).toContain("paged the owner");
    expect(before).toContain("open: waiting for a person");
    expect(before).toMatch(/<dt>Proposed by<\/dt><dd><code>API key development<\/code>/);
    const runPage = await (await browser.get(`/console/runs/${run}`)).text();
    const seq = /id="escalation-(\d+)"/.exec(runPage);
    // The form names the outcome's audit entry, not a call number the timeline does not use.
    expect(runPage).toContain(`Audit entry #${seq?.[1]}: <code>add_comment</code>`);
    const closed = await browser.post(`/console/runs/${run}/escalations/${seq?.[1]}`, {
      resolution: "closed",
      note: "owner paged by phone",
    });
    expect(closed.status).toBe(303);
    const after = callOf(await (await browser.get(`/console/runs/${run}`)).text(), 1);
    expect(after).toMatch(/<strong>closed<\/strong> by <code>development<\/code>/);
    expect(after).toContain("owner paged by phone");
  });

  it("shows the approval a call used, and who decided it", async () => {
    const run = newRun("console-detail");
    const call = urgentTicket("k-console-detail-approve");
    const pending = await pendingOf(await propose(run, call));
    expect((await decide(run, pending.approval_id, "approve", "go ahead")).status).toBe(200);
    expect((await propose(run, call)).status).toBe(200);
    const browser = await signedIn(DEV_KEY);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    const first = callOf(page, 1);
    expect(first).toContain("Sent to a person for approval.");
    expect(first).toContain(`<code>${pending.approval_id}</code>`);
    expect(first).toMatch(/<strong>consumed<\/strong>, decided by <code>development<\/code>/);
    expect(first).toContain("go ahead");
    expect(first).toContain("Checkout is down");
  });
});
