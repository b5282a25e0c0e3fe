import { describe, expect, it } from "vitest";
import { get, json, newRun, propose } from "../helpers.ts";
import { decide, pendingOf, urgentTicket } from "./helpers.ts";

interface Listed {
  approval_id: string;
  status: string;
  idempotency_key: string | null;
}

describe("a grant and the idempotency key the approver was shown", () => {
  it("admits only that key: another key with the same payload asks a person anew", async () => {
    const run = newRun("grant-key");
    const shown = urgentTicket("k-grant-shown");
    const asked = await pendingOf(await propose(run, shown));
    expect((await decide(run, asked.approval_id, "approve", "go")).status).toBe(200);
    const other = { ...shown, idempotency_key: "k-grant-other" };
    const again = await pendingOf(await propose(run, other));
    expect(again.approval_id).not.toBe(asked.approval_id);
    const applied = await propose(run, shown);
    expect(applied.status).toBe(200);
    expect(await json(applied)).toMatchObject({ decision: "applied" });
    const listed = await json<{ approvals: Listed[] }>(
      await get(`/v1/runs/${run}/approvals?status=all`),
    );
    const byId = new Map(listed.approvals.map((a) => [a.approval_id, a]));
    expect(byId.get(asked.approval_id)).toMatchObject({
      status: "consumed",
      idempotency_key: "k-grant-shown",
    });
    expect(byId.get(again.approval_id)).toMatchObject({
      status: "pending",
      idempotency_key: "k-grant-other",
    });
  });
});
