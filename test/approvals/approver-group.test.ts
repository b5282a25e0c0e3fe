import { describe, expect, it } from "vitest";
import { callerWith, json } from "../helpers.ts";
import { actBy, openedBy, person, ticket } from "./deciders.ts";
import { decide } from "./helpers.ts";

describe("an approver group of named people", () => {
  it("refuses an operator key and a person not named; a named person decides", async () => {
    const { stub, ref, id } = await openedBy(undefined, "SEC-group-1");
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const byKey = await decide(ref.runId, id, "approve", "", operator.key ?? "");
    expect(byKey.status).toBe(403);
    expect(byKey.headers.get("Content-Type")).toBe("application/problem+json");
    expect(await json(byKey)).toMatchObject({ decision: "block", reason: "approver_not_allowed" });
    const bob = await stub.decide(id, "approve", actBy(person("s-bob", "bob@example.com"), "bob"));
    expect(bob).toMatchObject({ kind: "refuse", refusal: { reason: "approver_not_allowed" } });
    const denyByBob = await stub.decide(
      id,
      "deny",
      actBy(person("s-bob", "bob@example.com"), "bob"),
    );
    expect(denyByBob).toMatchObject({
      kind: "refuse",
      refusal: { reason: "approver_not_allowed" },
    });
    expect((await stub.propose(ref, ticket("SEC-group-1", "k-deciders-0001"))).kind).toBe(
      "approval",
    );
    // Matched by email, whatever its case.
    const grace = person("s-grace", "Grace@Example.com");
    const decided = await stub.decide(id, "approve", actBy(grace, "grace"));
    expect(decided).toMatchObject({ kind: "decided", approval: { status: "approved" } });
    expect((await stub.propose(ref, ticket("SEC-group-1", "k-deciders-0001"))).kind).toBe("admit");
  });

  it("leaves a rule without approvers to any operator key", async () => {
    const { ref, id } = await openedBy(undefined, "T-group-2");
    const operator = await callerWith({ tenant: "default", role: "operator" });
    const res = await decide(ref.runId, id, "approve", "", operator.key ?? "");
    expect(res.status).toBe(200);
  });
});
