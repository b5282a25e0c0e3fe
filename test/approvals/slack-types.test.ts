import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  type ApprovalNotice,
  type NoticeType,
  noticeBody,
  noticeMessage,
} from "../../src/core/approval-notice.ts";
import { SlackMessageSchema, slackTyped } from "./slack-message.ts";

const NOTICE: ApprovalNotice = {
  type: "approval.requested",
  tenant: "default",
  runId: "incident-42",
  approvalId: "apr_0123456789abcdef0123456789abcdef",
  tool: "create_ticket",
  rule: "urgent_ticket",
  args: { ticket_id: "T-1", title: "Checkout is down", priority: "urgent" },
  idempotencyKey: "k-1",
  requestedAt: "2026-12-03T07:20:14.562Z",
  expiresAt: "2026-12-03T08:20:14.562Z",
  status: "pending",
  decidedBy: null,
  note: null,
  origin: "https://fence.example.com",
};

const EVENTS: [NoticeType, Partial<ApprovalNotice>][] = [
  ["approval.requested", {}],
  ["approval.decided", { status: "approved", decidedBy: "ada@example.com", note: "go" }],
  ["approval.expired", { status: "expired" }],
];

describe("the approval notice, against Slack's own types", () => {
  it("is a message Slack's types accept, and the body posted is exactly it", () => {
    for (const [type, more] of EVENTS) {
      const notice = { ...NOTICE, type, ...more };
      // Compile time: `slackTyped` takes only what `@slack/types` calls a message.
      const message = slackTyped(noticeMessage(notice));
      expect(JSON.parse(noticeBody(notice))).toMatchObject(message);
      v.parse(SlackMessageSchema, JSON.parse(noticeBody(notice)));
      expect(message.blocks.map((b) => b.type)).toEqual(["section", "section", "actions"]);
    }
  });

  it("has no button without an absolute link, still a message Slack's types accept", () => {
    const message = slackTyped(noticeMessage({ ...NOTICE, origin: "" }));
    expect(message.blocks.map((b) => b.type)).toEqual(["section", "section"]);
  });

  it("is checked by types that refuse a block Slack does not define", () => {
    const callout = { type: "callout", text: { type: "mrkdwn", text: "x" } } as const;
    // @ts-expect-error: `callout` is no block of Slack's
    expect(slackTyped({ text: "x", blocks: [callout] }).blocks).toHaveLength(1);
  });
});
