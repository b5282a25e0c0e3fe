import * as v from "valibot";
import { describe, expect, inject, it } from "vitest";
import { SIGNATURE_HEADER, verifySignature } from "../../src/core/webhook-signature.ts";
import { WEBHOOK_ATTEMPTS } from "../../src/ledger/approvals/webhook.ts";
import { linkOf, SlackMessageSchema } from "../approvals/slack-message.ts";
import { type Delivery, DOWN_PREFIX, FAILS_BEFORE_SUCCESS } from "./webhook-receiver.ts";

const url = inject("fenceUrl");
const hookUrl = inject("hookUrl");
const secret = inject("hookSecret");
const auth = { Authorization: "Bearer tf_dev_local_key", "Content-Type": "application/json" };

async function decide(run: string, id: string, decision: "approve" | "deny", note: string) {
  const res = await fetch(`${url}/v1/runs/${run}/approvals/${id}`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ decision, note }),
  });
  expect(res.status).toBe(200);
}

/** A delivery's body, once its signature verifies and Slack would take it as a message. */
async function slackBody(d: Delivery | undefined): Promise<Record<string, unknown>> {
  const now = Math.floor(Date.now() / 1000);
  expect(await verifySignature(secret, d?.body ?? "", d?.signature ?? "", now)).toBe(true);
  const body = JSON.parse(d?.body ?? "{}") as Record<string, unknown>;
  v.parse(SlackMessageSchema, body);
  expect(linkOf(String(body.text))).toBe(
    `${url}/console/runs/${body.run_id}#approval-${body.approval_id}`,
  );
  return body;
}

async function askApproval(run: string): Promise<string> {
  const res = await fetch(`${url}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}`, priority: "urgent" },
      idempotency_key: `k-hook-${crypto.randomUUID()}`,
    }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { approval_id: string }).approval_id;
}

async function deliveries(id: string): Promise<Delivery[]> {
  return (await (await fetch(`${hookUrl}/deliveries/${id}`)).json()) as Delivery[];
}

/** Poll until `n` deliveries arrived (or 15 s passed), then return them. */
async function waitFor(id: string, n: number): Promise<Delivery[]> {
  const until = Date.now() + 15_000;
  for (;;) {
    const got = await deliveries(id);
    if (got.length >= n || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the approval webhook, against a real receiver", () => {
  it("posts a signed body for a new approval, retrying until the receiver takes it", async () => {
    const run = `e2e-hook-${crypto.randomUUID()}`;
    const id = await askApproval(run);
    const got = await waitFor(id, FAILS_BEFORE_SUCCESS + 1);
    expect(got.map((d) => d.status)).toEqual([503, 503, 204]);
    const now = Math.floor(Date.now() / 1000);
    for (const d of got) {
      expect(d.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await verifySignature(secret, d.body, d.signature ?? "", now)).toBe(true);
      expect(await verifySignature("another-secret", d.body, d.signature ?? "", now)).toBe(false);
      expect(await verifySignature(secret, `${d.body} `, d.signature ?? "", now)).toBe(false);
    }
    expect(JSON.parse(got[2]?.body ?? "{}")).toMatchObject({
      type: "approval.requested",
      run_id: run,
      approval_id: id,
      tool: "create_ticket",
      rule: "urgent_ticket",
      args: { priority: "urgent" },
    });
    expect(SIGNATURE_HEADER).toBe("Toolfence-Signature");
    expect((await slackBody(got[2])).text).toMatch(/^Approval needed: create_ticket in run /);
  });

  it("posts the operator's decision, approve or deny, as a signed Slack message", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const run = `e2e-hook-${crypto.randomUUID()}`;
      const id = await askApproval(run);
      await waitFor(id, FAILS_BEFORE_SUCCESS + 1);
      await decide(run, id, decision, `${decision}d in the e2e test`);
      const got = await waitFor(id, FAILS_BEFORE_SUCCESS + 2);
      const body = await slackBody(got[FAILS_BEFORE_SUCCESS + 1]);
      expect(body).toMatchObject({
        type: "approval.decided",
        approval_id: id,
        status: decision === "approve" ? "approved" : "denied",
        decided_by: "development",
        note: `${decision}d in the e2e test`,
      });
      expect(body.text).toMatch(
        decision === "approve" ? /^Approved by development: / : /^Denied by /,
      );
    }
  });

  it("gives up after a bounded number of attempts when the receiver stays down", async () => {
    const id = await askApproval(`${DOWN_PREFIX}${crypto.randomUUID()}`);
    const got = await waitFor(id, WEBHOOK_ATTEMPTS);
    expect(got).toHaveLength(WEBHOOK_ATTEMPTS);
    // Each wait doubles: the gaps between attempts grow.
    const gaps = got.slice(1).map((d, i) => d.at - (got[i]?.at ?? 0));
    expect(gaps.every((g, i) => i === 0 || g > (gaps[i - 1] ?? 0))).toBe(true);
    // Longer than the whole back-off schedule: no further attempt comes.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await deliveries(id)).toHaveLength(WEBHOOK_ATTEMPTS);
  });
});
