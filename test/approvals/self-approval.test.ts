import { describe, expect, it } from "vitest";
import type { AuditPrincipal } from "../../src/core/principal.ts";
import { callerWith, json, newRun } from "../helpers.ts";
import { actBy, openedBy, person, ticket } from "./deciders.ts";
import { postJson } from "./helpers.ts";

const ADA = person("s-ada", "ada@example.com");
const GRACE = person("s-grace", "grace@example.com");

/** An operator key, as a call or an act names it. */
function key(id: string): AuditPrincipal {
  return { kind: "key", key_id: id.repeat(64 / id.length), label: `key ${id}` };
}
const OPS_KEY = key("a1");
const OTHER_KEY = key("b2");

describe("self-approval", () => {
  it("refuses the person whose agent proposed the call, unless the rule allows it", async () => {
    const { stub, ref, id } = await openedBy(ADA, "T-self-1");
    const own = await stub.decide(id, "approve", actBy(ADA, "ada@example.com"));
    expect(own).toMatchObject({ kind: "refuse", refusal: { reason: "self_approval_not_allowed" } });
    // Nothing was granted: the call still waits.
    expect((await stub.propose(ref, ticket("T-self-1", "k-deciders-0001"))).kind).toBe("approval");
    const other = await stub.decide(id, "approve", actBy(GRACE, "grace@example.com"));
    expect(other).toMatchObject({ kind: "decided", approval: { status: "approved" } });
    expect((await stub.propose(ref, ticket("T-self-1", "k-deciders-0001"))).kind).toBe("admit");
  });

  it("lets the proposer approve under a rule with self_approval", async () => {
    const { stub, id } = await openedBy(ADA, "OPS-self-2");
    const own = await stub.decide(id, "approve", actBy(ADA, "ada@example.com"));
    expect(own).toMatchObject({ kind: "decided", approval: { status: "approved" } });
  });

  it("does not refuse a key's decision on a call no person proposed", async () => {
    const { stub, id } = await openedBy(undefined, "T-self-3");
    const decided = await stub.decide(id, "approve", actBy(ADA, "ada@example.com"));
    expect(decided).toMatchObject({ kind: "decided", approval: { status: "approved" } });
  });

  it("refuses the operator key that proposed the call, as it refuses a person, unless the rule allows it", async () => {
    const { stub, ref, id } = await openedBy(OPS_KEY, "T-self-4");
    const own = await stub.decide(id, "approve", actBy(OPS_KEY, "key a1"));
    expect(own).toMatchObject({ kind: "refuse", refusal: { reason: "self_approval_not_allowed" } });
    expect((await stub.propose(ref, ticket("T-self-4", "k-deciders-0001"))).kind).toBe("approval");
    const other = await stub.decide(id, "approve", actBy(OTHER_KEY, "key b2"));
    expect(other).toMatchObject({ kind: "decided", approval: { status: "approved" } });
    const allowed = await openedBy(OPS_KEY, "OPS-self-5");
    const mine = await allowed.stub.decide(allowed.id, "approve", actBy(OPS_KEY, "key a1"));
    expect(mine).toMatchObject({ kind: "decided", approval: { status: "approved" } });
  });

  it("takes the key that consented to an OAuth grant for the proposer of the grant's calls", async () => {
    const viaGrant = { ...OPS_KEY, client_id: "https://host.example/client", grant_id: "g-1" };
    const { stub, id } = await openedBy(viaGrant as AuditPrincipal, "T-self-6");
    const own = await stub.decide(id, "approve", actBy(OPS_KEY, "key a1"));
    expect(own).toMatchObject({ kind: "refuse", refusal: { reason: "self_approval_not_allowed" } });
  });

  it("lets the development key approve its own call: under local development it is every role", async () => {
    const dev: AuditPrincipal = { kind: "key", key_id: null, label: "development" };
    const { stub, id } = await openedBy(dev, "T-self-7");
    const own = await stub.decide(id, "approve", actBy(dev, "development"));
    expect(own).toMatchObject({ kind: "decided", approval: { status: "approved" } });
  });

  it("refuses it over HTTP: an operator key cannot approve the call it proposed", async () => {
    const proposer = await callerWith({ role: "operator" });
    const colleague = await callerWith({ role: "operator", tenant: proposer.tenant });
    const run = newRun("self-key");
    const call = {
      tool: "create_ticket",
      args: { ticket_id: "T-self-8", title: "t", priority: "urgent" },
      idempotency_key: "k-self-key-01",
    };
    const asked = await json<{ approval_id: string }>(await proposer.propose(run, call));
    const path = `/v1/runs/${run}/approvals/${asked.approval_id}`;
    const own = await postJson(path, { decision: "approve", note: "mine" }, proposer.key ?? "");
    expect(own.status).toBe(403);
    expect(await json(own)).toMatchObject({ reason: "self_approval_not_allowed" });
    const other = await postJson(path, { decision: "approve", note: "ok" }, colleague.key ?? "");
    expect(other.status).toBe(200);
  });
});
