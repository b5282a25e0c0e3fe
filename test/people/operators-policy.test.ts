import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import policy from "../../demo/contracts/policy.json" with { type: "json" };
import { operatorTenant, type Person } from "../../src/core/people.ts";
import { policyReport } from "../../src/core/policy-report.ts";
import { startFence } from "../../src/fence.ts";

const ada: Person = {
  iss: "https://idp.example",
  sub: "s-ada",
  email: "Ada@Example.com",
  name: null,
};

describe("the policy's operators section", () => {
  it("is validated: a bad tenant, an unknown member and an empty claim are refused", () => {
    const bad = (operators: unknown) => () => startFence(CONTRACTS, { ...policy, operators });
    expect(bad({ tenant: "Not A Tenant" })).toThrow(/policy\.operators\.tenant/);
    expect(bad({ allow: [], admins: ["x"] })).toThrow(/policy\.operators\.admins/);
    expect(bad({ claim: { name: "groups", value: "" } })).toThrow(
      /policy\.operators\.claim\.value/,
    );
  });

  it("is shown by `npm run policy -- check`", () => {
    const operators = { allow: ["ada@example.com"], claim: { name: "groups", value: "ops" } };
    const report = policyReport(startFence(CONTRACTS, { ...policy, operators }));
    expect(report).toMatch(
      /operators \(tenant default\):\n {2}ada@example\.com\n {2}whoever's groups claim holds ops/,
    );
    // Without operators, no rule may name its deciders: the demo's named-people rule goes too.
    const { operators: _, ...rest } = policy;
    const ticket = rest.tools.create_ticket;
    const approval = ticket.approval.filter((rule) => !("approvers" in rule));
    const none = { ...rest, tools: { ...rest.tools, create_ticket: { ...ticket, approval } } };
    expect(policyReport(startFence(CONTRACTS, none))).toMatch(/operators: none named/);
  });

  it("makes a person an operator by verified email, by subject or by claim, and nobody without it", () => {
    const ops = { allow: ["ada@example.com", "sub:s-bob"], tenant: "acme" };
    expect(operatorTenant(ops, ada, { email_verified: true })).toEqual({ ok: true, value: "acme" });
    expect(operatorTenant(ops, ada, {}).ok).toBe(false);
    const bob: Person = { ...ada, sub: "s-bob", email: null };
    expect(operatorTenant(ops, bob, {}).ok).toBe(true);
    const byClaim = { allow: [], claim: { name: "roles", value: "fence-ops" }, tenant: "acme" };
    expect(operatorTenant(byClaim, ada, { roles: ["fence-ops"] }).ok).toBe(true);
    expect(operatorTenant(byClaim, ada, { roles: "viewer" }).ok).toBe(false);
    expect(operatorTenant(undefined, ada, { email_verified: true }).ok).toBe(false);
  });

  it("takes the tenant from the tenant claim when it names one, and refuses one that does not", () => {
    const ops = { allow: ["sub:s-ada"], tenant: "acme", tenant_claim: "org" };
    expect(operatorTenant(ops, ada, { org: "beta" })).toEqual({ ok: true, value: "beta" });
    expect(operatorTenant(ops, ada, {})).toEqual({ ok: true, value: "acme" });
    expect(operatorTenant(ops, ada, { org: "../other" }).ok).toBe(false);
  });
});
