import { describe, expect, it } from "vitest";
import { callerWith, demoUpstreams, get, json, newRun, propose } from "../helpers.ts";
import { postJson } from "./helpers.ts";

interface Escalation {
  seq: number;
  reason: string;
  resolution: { resolution: string; note: string | null; actor: string } | null;
}

/** A comment on a ticket that does not exist yet: the demo desk answers 404, an escalation. */
function commentOn(ticketId: string, key: string) {
  return {
    tool: "add_comment",
    args: { ticket_id: ticketId, body: "paged" },
    idempotency_key: key,
  };
}

async function createTicket(ticketId: string): Promise<void> {
  const res = await demoUpstreams().fetch("https://demo.internal/tickets", {
    method: "POST",
    headers: { "X-Toolfence-Tenant": "default", "Content-Type": "application/json" },
    body: JSON.stringify({ ticket_id: ticketId, priority: "normal" }),
  });
  if (res.status !== 201) throw new Error(`creating the ticket failed: ${res.status}`);
}

async function escalations(run: string, status?: string): Promise<Escalation[]> {
  const query = status === undefined ? "" : `?status=${status}`;
  const res = await get(`/v1/runs/${run}/escalations${query}`);
  return (await json<{ escalations: Escalation[] }>(res)).escalations;
}

async function escalate(run: string, ticketId: string, key: string): Promise<Escalation> {
  const res = await propose(run, commentOn(ticketId, key));
  expect(res.status).toBe(502);
  const [open] = await escalations(run);
  if (open === undefined) throw new Error("no open escalation");
  return open;
}

describe("resolving an escalation", () => {
  it("retry_allowed lets the same key run again, once, after the cause is fixed", async () => {
    const run = newRun();
    const ticketId = `T-${crypto.randomUUID()}`;
    const open = await escalate(run, ticketId, "k-escalate-0001");
    // Without a resolution the key's answer is final: a replay, no second upstream call.
    expect(
      (await propose(run, commentOn(ticketId, "k-escalate-0001"))).headers.get(
        "Idempotent-Replayed",
      ),
    ).toBe("true");
    await createTicket(ticketId);
    const resolved = await postJson(`/v1/runs/${run}/escalations/${open.seq}`, {
      resolution: "retry_allowed",
      note: "ticket created by hand",
    });
    expect(resolved.status).toBe(200);
    expect(await json(resolved)).toMatchObject({ resolution: { resolution: "retry_allowed" } });
    const retried = await propose(run, commentOn(ticketId, "k-escalate-0001"));
    expect(retried.status).toBe(200);
    expect(await json(retried)).toMatchObject({ decision: "applied" });
    // Once: the key's new answer is final again.
    const after = await propose(run, commentOn(ticketId, "k-escalate-0001"));
    expect(after.headers.get("Idempotent-Replayed")).toBe("true");
    expect(
      (
        await get(`/v1/runs/${run}`).then((r) =>
          json<{ budget: { mutations: { used: number } } }>(r),
        )
      ).budget.mutations.used,
    ).toBe(1);
  });

  it("closed keeps the answer final; the list shows open ones by default and resolved on request", async () => {
    const run = newRun();
    const ticketId = `T-${crypto.randomUUID()}`;
    const open = await escalate(run, ticketId, "k-escalate-0002");
    const res = await postJson(`/v1/runs/${run}/escalations/${open.seq}`, {
      resolution: "closed",
      note: "wrong ticket",
    });
    expect(res.status).toBe(200);
    expect(await escalations(run)).toEqual([]);
    const resolved = await escalations(run, "resolved");
    expect(resolved.map((e) => [e.seq, e.resolution?.resolution, e.resolution?.note])).toEqual([
      [open.seq, "closed", "wrong ticket"],
    ]);
    await createTicket(ticketId);
    const again = await propose(run, commentOn(ticketId, "k-escalate-0002"));
    expect(again.status).toBe(502);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("is refused twice, for a seq that is not an escalation, and for an agent key", async () => {
    const run = newRun();
    const open = await escalate(run, `T-${crypto.randomUUID()}`, "k-escalate-0003");
    const path = `/v1/runs/${run}/escalations/${open.seq}`;
    expect((await postJson(path, { resolution: "closed" })).status).toBe(200);
    const twice = await postJson(path, { resolution: "retry_allowed" });
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ reason: "escalation_already_resolved" });
    await propose(run, { tool: "noop", args: {} });
    const notEscalation = await postJson(`/v1/runs/${run}/escalations/${open.seq + 2}`, {
      resolution: "closed",
    });
    expect(notEscalation.status).toBe(404);
    const agent = await callerWith({ role: "agent", tenant: "default" });
    const byAgent = await postJson(path, { resolution: "closed" }, agent.key ?? "");
    expect(byAgent.status).toBe(403);
    expect(await json(byAgent)).toMatchObject({ reason: "forbidden_role" });
  });

  it("audits the resolution with who and why", async () => {
    const run = newRun();
    const open = await escalate(run, `T-${crypto.randomUUID()}`, "k-escalate-0004");
    await postJson(`/v1/runs/${run}/escalations/${open.seq}`, {
      resolution: "closed",
      note: "dup",
    });
    const audit = await json<{
      entries: {
        decision: string;
        resolves: number | null;
        actor: string | null;
        note: string | null;
      }[];
    }>(await get(`/v1/runs/${run}/audit`));
    expect(audit.entries.at(-1)).toMatchObject({
      decision: "escalation_closed",
      resolves: open.seq,
      actor: "development",
      note: "dup",
    });
  });
});
