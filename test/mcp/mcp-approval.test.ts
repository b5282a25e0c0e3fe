import { describe, expect, it } from "vitest";
import { decide } from "../approvals/helpers.ts";
import { demoTicket, newRun, runStatus } from "../helpers.ts";
import { type Era, mcpClient } from "./helpers.ts";

const FENCE = "io.toolfence/fence";

interface PendingContent {
  approval: {
    status: string;
    approval_id: string;
    rule: string;
    expires_at: string;
    retry_after_s: number;
  };
}

describe.each<Era>(["legacy", "auto"])(
  "MCP tools/call of a call that needs a person (%s era)",
  (era) => {
    it("answers a non-error pending result saying when to ask again, then applies once approved", async () => {
      const run = newRun("mcp");
      const ticketId = `T-${crypto.randomUUID()}`;
      const client = await mcpClient(run, { era });
      const call = {
        name: "create_ticket",
        arguments: { ticket_id: ticketId, priority: "urgent" },
      };
      // The SDK client validates structuredContent against the published output schema: a
      // pending result that did not fit it would throw here.
      const first = await client.callTool(call);
      expect(first.isError).toBeFalsy();
      const pending = first.structuredContent as unknown as PendingContent;
      expect(pending.approval).toMatchObject({
        status: "pending",
        rule: "urgent_ticket",
        retry_after_s: 30,
      });
      expect(first._meta?.[FENCE]).toMatchObject({ decision: "needs_approval" });
      const text = (first.content as { text: string }[])[0]?.text ?? "";
      expect(text).toContain("Approval pending");
      expect(text).toContain("after 30 s");
      expect((await demoTicket(ticketId)).status).toBe(404);
      expect((await runStatus(run)).budget.mutations.used).toBe(0);

      expect((await decide(run, pending.approval.approval_id, "approve")).status).toBe(200);
      const applied = await client.callTool(call);
      expect(applied.isError).toBeFalsy();
      expect(applied.structuredContent).toMatchObject({ ticket: { ticket_id: ticketId } });
      expect((await runStatus(run)).budget.mutations.used).toBe(1);
      await client.close();
    });

    it("hands the model an operator's denial as an error result with the note", async () => {
      const run = newRun("mcp");
      const client = await mcpClient(run, { era });
      const call = {
        name: "create_ticket",
        arguments: { ticket_id: `T-${crypto.randomUUID()}`, priority: "urgent" },
      };
      const first = await client.callTool(call);
      const { approval } = first.structuredContent as unknown as PendingContent;
      await decide(run, approval.approval_id, "deny", "page on-call instead");
      const denied = await client.callTool(call);
      expect(denied.isError).toBe(true);
      expect(JSON.stringify(denied.content)).toContain("page on-call instead");
      await client.close();
    });
  },
);
