import { describe, expect, it } from "vitest";
import { pendingOf, urgentTicket } from "../approvals/helpers.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

/**
 * An operator key proposing calls, and a colleague of its tenant signed in to the console to
 * decide them: the key that proposed a call may not approve it.
 */
async function operatorWithConsole() {
  const operator = await callerWith({ role: "operator" });
  const colleague = await callerWith({ role: "operator", tenant: operator.tenant });
  return { operator, browser: await signedIn(colleague.key ?? "") };
}

describe("console approvals and escalations", () => {
  it("shows a pending approval, approves it, and the re-proposed call is applied", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    const call = urgentTicket("k-console-approve-1");
    const pending = await pendingOf(await operator.propose(run, call));
    const list = await (await browser.get("/console/runs")).text();
    expect(list).toMatch(new RegExp(`${run}.*?<td class="num">1</td></tr>`, "s"));
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(page).toContain(`id="approval-${pending.approval_id}"`);
    expect(page).toContain("Checkout is down");
    const decided = await browser.post(`/console/runs/${run}/approvals/${pending.approval_id}`, {
      decision: "approve",
      note: "on call says go",
    });
    expect(decided.status).toBe(303);
    const applied = await operator.propose(run, call);
    expect(applied.status).toBe(200);
    expect(await json(applied)).toMatchObject({ decision: "applied" });
    const approvals = await json<{ approvals: { status: string; note: string }[] }>(
      await operator.get(`/v1/runs/${run}/approvals`),
    );
    expect(approvals.approvals).toMatchObject([{ status: "consumed", note: "on call says go" }]);
  });

  it("denies an approval, and refuses a second decision with the ledger's reason", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    const call = urgentTicket("k-console-deny-01");
    const pending = await pendingOf(await operator.propose(run, call));
    const path = `/console/runs/${run}/approvals/${pending.approval_id}`;
    expect((await browser.post(path, { decision: "deny" })).status).toBe(303);
    const again = await browser.post(path, { decision: "approve" });
    expect(again.status).toBe(422);
    expect(await json(await operator.propose(run, call))).toMatchObject({
      reason: "approval_denied",
    });
    const bad = await browser.post(path, { decision: "maybe" });
    expect(bad.status).toBe(422);
  });

  it("resolves an open escalation, which then leaves the run's page", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    const comment = {
      tool: "add_comment",
      args: { ticket_id: `T-${crypto.randomUUID()}`, body: "paged" },
      idempotency_key: "k-console-escalate",
    };
    expect((await operator.propose(run, comment)).status).toBe(502);
    const before = await (await browser.get(`/console/runs/${run}`)).text();
    const seq = /id="escalation-(\d+)"/.exec(before)?.[1];
    expect(seq).toBeDefined();
    const resolved = await browser.post(`/console/runs/${run}/escalations/${seq}`, {
      resolution: "closed",
      note: "duplicate of INC-7",
    });
    expect(resolved.status).toBe(303);
    const after = await (await browser.get(`/console/runs/${run}`)).text();
    expect(after).not.toContain(`id="escalation-${seq}"`);
    const listed = await json<{ escalations: { resolution: { note: string } }[] }>(
      await operator.get(`/v1/runs/${run}/escalations?status=resolved`),
    );
    expect(listed.escalations).toMatchObject([{ resolution: { note: "duplicate of INC-7" } }]);
  });
});
