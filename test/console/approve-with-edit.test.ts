import { describe, expect, it } from "vitest";
import { pendingOf, urgentTicket } from "../approvals/helpers.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

interface Approval {
  status: string;
  args: Record<string, unknown>;
  edited_args: Record<string, unknown> | null;
}

/** The text of approval `id`'s arguments field on a run's page, as a browser would send it. */
function argsField(page: string, id: string): string {
  const found = new RegExp(`<textarea id="args-${id}"[^>]*>([^<]*)</textarea>`).exec(page);
  expect(found, "the arguments field").not.toBeNull();
  return (found?.[1] ?? "").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

async function setUp(args: Record<string, unknown> = {}) {
  const tenant = `t-${crypto.randomUUID()}`;
  const [agent, operator] = await Promise.all([
    callerWith({ tenant }),
    callerWith({ tenant, role: "operator" }),
  ]);
  const browser = await signedIn(operator.key ?? "");
  const run = newRun();
  const base = urgentTicket(`k-console-edit-${crypto.randomUUID().slice(0, 8)}`);
  const call = { ...base, args: { ...base.args, ...args } };
  const id = (await pendingOf(await agent.propose(run, call))).approval_id;
  const approval = async () => {
    const list = await json<{ approvals: Approval[] }>(
      await operator.get(`/v1/runs/${run}/approvals`),
    );
    return list.approvals[0];
  };
  return { agent, browser, run, call, id, approval, path: `/console/runs/${run}/approvals/${id}` };
}

describe("approve with an edit from the console", () => {
  it("offers the arguments as JSON to edit; an edit binds the grant to the edited call", async () => {
    const { agent, browser, run, call, id, approval, path } = await setUp();
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(JSON.parse(argsField(page, id))).toEqual(call.args);
    const edited = { ...call.args, priority: "high" };
    const decided = await browser.post(path, {
      decision: "approve",
      args: JSON.stringify(edited, null, 2),
    });
    expect(decided.status).toBe(303);
    expect(await approval()).toMatchObject({ status: "approved", edited_args: edited });
    const original = await agent.propose(run, call);
    expect(await json(original)).toMatchObject({ reason: "approval_edited" });
    const applied = await agent.propose(run, { ...call, args: edited });
    expect(applied.status).toBe(200);
  });

  it("approves the call as proposed when the arguments are sent back as shown", async () => {
    const { agent, browser, run, call, id, approval, path } = await setUp();
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    // A browser sends a text area's lines ending in CR LF (HTML's form submission).
    const asShown = argsField(page, id).replaceAll("\n", "\r\n");
    const decided = await browser.post(path, { decision: "approve", args: asShown });
    expect(decided.status).toBe(303);
    expect(await approval()).toMatchObject({ status: "approved", edited_args: null });
    expect((await agent.propose(run, call)).status).toBe(200);
  });

  it("shows a bad edit's contract issues on the page and changes nothing", async () => {
    const { browser, call, approval, path } = await setUp();
    const bad = await browser.post(path, {
      decision: "approve",
      args: JSON.stringify({ ...call.args, priority: "whenever" }),
    });
    expect(bad.status).toBe(422);
    const page = await bad.text();
    expect(page).toContain("break create_ticket&#39;s contract");
    expect(page).toMatch(/priority: [^<]*urgent/);
    const notJson = await browser.post(path, { decision: "approve", args: "{priority:" });
    expect(notJson.status).toBe(422);
    expect(await notJson.text()).toContain("The edited args are not JSON");
    const denied = await browser.post(path, {
      decision: "deny",
      args: JSON.stringify({ ...call.args, priority: "high" }),
    });
    expect(denied.status).toBe(422);
    expect(await approval()).toMatchObject({ status: "pending", edited_args: null });
  });

  it("shows a sensitive argument redacted, and refuses an edit that sends it back redacted", async () => {
    const { browser, run, id, approval, path } = await setUp({ reporter_email: "ann@example.com" });
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(page).not.toContain("ann@example.com");
    const shown = JSON.parse(argsField(page, id)) as Record<string, unknown>;
    expect(shown.reporter_email).not.toBe("ann@example.com");
    const kept = await browser.post(path, {
      decision: "approve",
      args: JSON.stringify({ ...shown, priority: "high" }),
    });
    expect(kept.status).toBe(422);
    expect(await kept.text()).toContain("redacted form of the sensitive reporter_email");
    expect(await approval()).toMatchObject({ status: "pending", edited_args: null });
    const replaced = { ...shown, priority: "high", reporter_email: "bo@example.com" };
    const decided = await browser.post(path, {
      decision: "approve",
      args: JSON.stringify(replaced),
    });
    expect(decided.status).toBe(303);
    expect(await approval()).toMatchObject({ status: "approved" });
  });
});
