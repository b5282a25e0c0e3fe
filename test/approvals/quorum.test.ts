import { describe, expect, it } from "vitest";
import { callerWith, json, newRun } from "../helpers.ts";
import { decide, pendingOf } from "./helpers.ts";

interface Decided {
  status: string;
  quorum: number;
  approvals: { by: string }[];
}

function incident(ticketId: string) {
  return {
    tool: "create_ticket",
    args: { ticket_id: ticketId, title: "Checkout is down", priority: "high" },
    idempotency_key: `k-${ticketId}`,
  };
}

/** An agent's call waiting for a rule of quorum 2, and two operators of its tenant. */
async function askedOfTwo() {
  const tenant = `t-${crypto.randomUUID()}`;
  const [agent, first, second] = await Promise.all([
    callerWith({ tenant }),
    callerWith({ tenant, role: "operator" }),
    callerWith({ tenant, role: "operator" }),
  ]);
  const run = newRun();
  const call = incident(`INC-${crypto.randomUUID().slice(0, 8)}`);
  const id = (await pendingOf(await agent.propose(run, call))).approval_id;
  return { agent, first, second, run, call, id };
}

describe("a rule with a quorum", () => {
  it("grants only once N distinct approvers approved; the same one twice is refused", async () => {
    const { agent, first, second, run, call, id } = await askedOfTwo();
    const one = await decide(run, id, "approve", "", first.key ?? "");
    expect(one.status).toBe(200);
    expect(await json<Decided>(one)).toMatchObject({ status: "pending", quorum: 2 });
    const twice = await decide(run, id, "approve", "", first.key ?? "");
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ reason: "approval_already_decided_by_you" });
    // One approval of two: no grant yet.
    await pendingOf(await agent.propose(run, call));
    const two = await decide(run, id, "approve", "", second.key ?? "");
    const decided = await json<Decided>(two);
    expect(decided.status).toBe("approved");
    expect(decided.approvals).toHaveLength(2);
    expect((await agent.propose(run, call)).status).toBe(200);
  });

  it("is denied by one denial", async () => {
    const { agent, first, second, run, call, id } = await askedOfTwo();
    expect((await decide(run, id, "approve", "", first.key ?? "")).status).toBe(200);
    const denied = await decide(run, id, "deny", "no", second.key ?? "");
    expect(await json(denied)).toMatchObject({ status: "denied" });
    expect(await json(await agent.propose(run, call))).toMatchObject({ reason: "approval_denied" });
  });
});
