import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SIGNATURE_HEADER, verifySignature } from "../../src/core/webhook-signature.ts";
import { type Caller, callerWith, newRun } from "../helpers.ts";
import { decide, lapse, pendingOf, urgentTicket } from "./helpers.ts";
import { linkOf, SlackMessageSchema } from "./slack-message.ts";

const HOOK = "https://hooks.example.test/approvals";
const SECRET = "approval-webhook-test-secret";
/** A sensitive argument of `create_ticket`: no notice may carry it. */
const EMAIL = "ada@example.com";
/** The webhook's variables are read from the bindings each time: set for this file's tests. */
const vars = env as unknown as Record<string, string | undefined>;

interface Posted {
  body: string;
  signature: string | null;
}

let posted: Posted[] = [];

beforeEach(() => {
  vars.APPROVAL_WEBHOOK_URL = HOOK;
  vars.APPROVAL_WEBHOOK_SECRET = SECRET;
  posted = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== HOOK) return real(input, init);
    const signature = new Headers(init?.headers).get(SIGNATURE_HEADER);
    posted.push({ body: String(init?.body), signature });
    return new Response(null, { status: 204 });
  });
});

afterEach(() => {
  delete vars.APPROVAL_WEBHOOK_URL;
  delete vars.APPROVAL_WEBHOOK_SECRET;
  delete vars.PUBLIC_URL;
  vi.restoreAllMocks();
});

/** The notice of `type` about approval `id`, once posted: a valid Slack message, signed. */
async function noticeOf(type: string, id: string): Promise<Record<string, unknown>> {
  const found = await vi.waitFor(
    () => {
      const hit = posted.find((p) => {
        const body = JSON.parse(p.body) as Record<string, unknown>;
        return body.type === type && body.approval_id === id;
      });
      if (hit === undefined) throw new Error(`no ${type} notice for ${id} yet`);
      return hit;
    },
    { timeout: 3_000, interval: 20 },
  );
  const now = Math.floor(Date.now() / 1000);
  expect(await verifySignature(SECRET, found.body, found.signature ?? "", now)).toBe(true);
  const body = JSON.parse(found.body) as Record<string, unknown>;
  v.parse(SlackMessageSchema, body);
  // The sensitive argument is its keyed digest everywhere: args, text and blocks.
  expect(found.body).not.toContain(EMAIL);
  return body;
}

async function ask(agent: Caller, run: string, key: string) {
  const call = urgentTicket(key);
  const args = { ...call.args, reporter_email: EMAIL };
  return pendingOf(await agent.propose(run, { ...call, args }));
}

describe("approval notifications, Slack-compatible and signed", () => {
  it("announce a new approval: a one-line text, blocks, a link to the call, the args redacted", async () => {
    const agent = await callerWith({ role: "operator" });
    const run = newRun();
    const pending = await ask(agent, run, "k-notice-requested");
    const body = await noticeOf("approval.requested", pending.approval_id);
    const link = `http://localhost/console/runs/${run}#approval-${pending.approval_id}`;
    expect(body).toMatchObject({
      type: "approval.requested",
      run_id: run,
      tool: "create_ticket",
      rule: "urgent_ticket",
      status: "pending",
      expires_at: pending.expires_at,
      url: link,
      decide: `/v1/runs/${run}/approvals/${pending.approval_id}`,
    });
    expect(body.text).toMatch(
      new RegExp(
        `^Approval needed: create_ticket in run ${run} \\(rule urgent_ticket\\) — decide by \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC <`,
      ),
    );
    expect(linkOf(String(body.text))).toBe(link);
    expect(JSON.stringify(body.blocks)).toContain(`"url":"${link}"`);
    const args = body.args as Record<string, unknown>;
    expect(args.priority).toBe("urgent");
    expect(args.reporter_email).toMatch(/^hmac-sha256:[0-9a-f]{64}$|^redacted$/);
  });

  it("announce an operator's decision with who decided and the note, as text Slack shows", async () => {
    const operator = await callerWith({ role: "operator" });
    // Another operator decides: the key that proposed a call may not decide it.
    const decider = (await callerWith({ role: "operator", tenant: operator.tenant })).key ?? "";
    const run = newRun();
    const pending = await ask(operator, run, "k-notice-decided");
    const note = "<!channel> page on-call & the owner";
    const res = await decide(run, pending.approval_id, "approve", note, decider);
    expect(res.status).toBe(200);
    const body = await noticeOf("approval.decided", pending.approval_id);
    expect(body).toMatchObject({ status: "approved", note, decided_by: expect.any(String) });
    expect(body.decided_by).not.toBe("");
    expect(body.text).toContain(`Approved by ${body.decided_by}: create_ticket in run ${run}`);
    // Nothing the operator wrote becomes a Slack mention or link.
    expect(body.text).toContain("&lt;!channel&gt; page on-call &amp; the owner");
    expect(JSON.stringify(body.blocks)).not.toContain("<!channel>");

    const denied = await ask(operator, run, "k-notice-denied");
    await decide(run, denied.approval_id, "deny", "not an outage", decider);
    const refusal = await noticeOf("approval.decided", denied.approval_id);
    expect(refusal).toMatchObject({ status: "denied", note: "not an outage" });
    expect(refusal.text).toMatch(/^Denied by /);
  });

  it("announce an expiry from the run's alarm, linked at PUBLIC_URL when it is set", async () => {
    const operator = await callerWith({ role: "operator" });
    const run = newRun();
    const pending = await ask(operator, run, "k-notice-expired");
    await noticeOf("approval.requested", pending.approval_id);
    await lapse(run, pending.approval_id, operator.tenant);
    vars.PUBLIC_URL = "https://fence.example.com/";
    const ledger = env.RUN_LEDGER.getByName(`${operator.tenant}/${run}`);
    expect(await runDurableObjectAlarm(ledger)).toBe(true);
    const body = await noticeOf("approval.expired", pending.approval_id);
    expect(body).toMatchObject({
      type: "approval.expired",
      status: "expired",
      url: `https://fence.example.com/console/runs/${run}#approval-${pending.approval_id}`,
    });
    expect(body.text).toMatch(/^Approval expired: create_ticket in run .* the call is denied </);
    expect(posted.filter((p) => p.body.includes('"approval.expired"'))).toHaveLength(1);
  });
});
