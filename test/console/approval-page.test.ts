import { describe, expect, it } from "vitest";
import { pendingOf, urgentTicket } from "../approvals/helpers.ts";
import { callerWith, newRun } from "../helpers.ts";
import { ConsoleClient, signedIn } from "./browser.ts";

/** An approval asked by an agent's call, and an operator of its tenant to decide it. */
async function pendingApproval() {
  const operator = await callerWith({ role: "operator" });
  const agent = await callerWith({ role: "agent", tenant: operator.tenant });
  const run = newRun();
  const call = urgentTicket(`k-page-${crypto.randomUUID().slice(0, 8)}`);
  const pending = await pendingOf(await agent.propose(run, call));
  const page = `/console/runs/${run}/approvals/${pending.approval_id}`;
  return { operator, agent, run, call, page, id: pending.approval_id };
}

describe("console page of one approval", () => {
  it("asks a signed-out person to sign in, then returns to the approval's page", async () => {
    const { operator, page } = await pendingApproval();
    const browser = new ConsoleClient();
    const away = await browser.get(page);
    expect(away.status).toBe(303);
    const signInPage = away.headers.get("Location") ?? "";
    expect(signInPage).toBe(`/console?next=${encodeURIComponent(page)}`);
    const form = await (await browser.get(signInPage)).text();
    expect(form).toContain(`action="/console/sign-in?next=${encodeURIComponent(page)}"`);
    const back = await browser.post(`/console/sign-in?next=${encodeURIComponent(page)}`, {
      key: operator.key ?? "",
    });
    expect(back.status).toBe(303);
    expect(back.headers.get("Location")).toBe(page);
  });

  it("shows the call with its form, and what became of it once decided and run", async () => {
    const { operator, agent, run, call, page, id } = await pendingApproval();
    const browser = await signedIn(operator.key ?? "");
    const open = await browser.get(page);
    expect(open.status).toBe(200);
    const html = await open.text();
    expect(html).toContain(`id="approval-${id}"`);
    expect(html).toContain(`action="/console/runs/${run}/approvals/${id}"`);
    expect(html).toContain("Checkout is down");
    expect((await browser.post(page, { decision: "approve" })).status).toBe(303);
    expect(await (await browser.get(page)).text()).toContain("It is approved");
    expect((await agent.propose(run, call)).status).toBe(200);
    const after = await (await browser.get(page)).text();
    expect(after).toContain("the call has run");
    expect(after).not.toContain(`id="approval-${id}"`);
  });

  it("answers 404 for an approval the run does not have", async () => {
    const { operator, run } = await pendingApproval();
    const browser = await signedIn(operator.key ?? "");
    const res = await browser.get(`/console/runs/${run}/approvals/apr_${"0".repeat(32)}`);
    expect(res.status).toBe(404);
  });

  it("never returns anywhere but a console path after signing in", async () => {
    const { operator } = await pendingApproval();
    for (const next of [
      "//evil.example/console/",
      "https://evil.example/console/runs",
      "/console/../v1/tools",
      "/console/%2e%2e/v1/tools",
      "/consolex",
    ]) {
      const browser = new ConsoleClient();
      const res = await browser.post(`/console/sign-in?next=${encodeURIComponent(next)}`, {
        key: operator.key ?? "",
      });
      expect(res.headers.get("Location")).toBe("/console/runs");
    }
  });
});
