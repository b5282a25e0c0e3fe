import { describe, expect, it } from "vitest";
import { actBy, openedBy, person, ticket } from "./deciders.ts";

const ADA = person("s-ada", "ada@example.com");
const GRACE = person("s-grace", "grace@example.com");

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
});
