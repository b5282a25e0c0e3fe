import { describe, expect, it } from "vitest";
import { pendingOf } from "../approvals/helpers.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

function ticket(ticketId: string) {
  return {
    tool: "create_ticket",
    args: { ticket_id: ticketId, title: "Checkout is down", priority: "low" },
    idempotency_key: `k-deciders-${crypto.randomUUID().slice(0, 8)}`,
  };
}

/** The approval's form on a run's page. */
function formOf(page: string, id: string): string {
  const at = page.indexOf(`id="approval-${id}"`);
  expect(at, "the approval's form").toBeGreaterThan(-1);
  return page.slice(at, page.indexOf("</form>", at));
}

describe("the console shows who decides an approval and how many approvals it still needs", () => {
  it("counts the approvals toward a quorum, naming who gave them", async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const [agent, first, second] = await Promise.all([
      callerWith({ tenant, role: "agent" }),
      callerWith({ tenant, role: "operator" }),
      callerWith({ tenant, role: "operator" }),
    ]);
    const run = newRun();
    const call = ticket(`INC-${crypto.randomUUID()}`);
    const id = (await pendingOf(await agent.propose(run, call))).approval_id;
    const browser = await signedIn(first.key ?? "");
    const before = formOf(await (await browser.get(`/console/runs/${run}`)).text(), id);
    expect(before).toContain("Any operator of the tenant may decide.");
    expect(before).toContain("Approved by 0 of 2 needed; 2 more approvals needed.");

    const path = `/console/runs/${run}/approvals/${id}`;
    expect((await browser.post(path, { decision: "approve" })).status).toBe(303);
    const after = formOf(await (await browser.get(`/console/runs/${run}`)).text(), id);
    const { approvals } = await json<{ approvals: { approvals: { by: string }[] }[] }>(
      await first.get(`/v1/runs/${run}/approvals`),
    );
    const by = approvals[0]?.approvals[0]?.by ?? "";
    expect(by).not.toBe("");
    expect(after).toContain(`Approved by 1 of 2 needed: <code>${by}</code> at `);
    expect(after).toContain("1 more approval needed.");

    // The same operator again is refused, in words; another one completes the quorum.
    const again = await browser.post(path, { decision: "approve" });
    expect(again.status).toBe(422);
    expect(await again.text()).toContain("You already approved this; another approver must.");
    const other = await signedIn(second.key ?? "");
    expect((await other.post(path, { decision: "approve" })).status).toBe(303);
    expect((await agent.propose(run, call)).status).toBe(200);
  });

  it("names the people a rule leaves the decision to, and tells anyone else why not", async () => {
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const run = newRun();
    const id = (await pendingOf(await operator.propose(run, ticket(`SEC-${crypto.randomUUID()}`))))
      .approval_id;
    const browser = await signedIn(operator.key ?? "");
    const form = formOf(await (await browser.get(`/console/runs/${run}`)).text(), id);
    expect(form).toContain(
      "Decided only by <code>ada@example.com</code>, <code>grace@example.com</code>.",
    );
    expect(form).toContain("The approval rule does not let you decide this approval.");
    const refused = await browser.post(`/console/runs/${run}/approvals/${id}`, {
      decision: "approve",
    });
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain(
      `The approval rule does not let you decide this approval. Approval ${id}`,
    );
    expect(page).toContain("an operator key is no one of them");
  });
});
