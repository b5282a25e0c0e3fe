import { afterEach, describe, expect, it, vi } from "vitest";
import { deciderOf, mayDecide } from "../../src/core/approval.ts";
import {
  bindingsWith,
  CLIENT_ID,
  CLIENT_SECRET,
  fenceWith,
  PersonBrowser,
  StandInProvider,
  serveOutbound,
  signInThrough,
} from "../people/helpers.ts";
import { actBy, openedBy, person, ticket } from "./deciders.ts";

afterEach(() => vi.restoreAllMocks());

/** Grace, named by the `security_ticket` rule, signed in through a provider; verified or not. */
async function graceSignedIn(verified: boolean): Promise<PersonBrowser> {
  const idp = await new StandInProvider().start();
  serveOutbound(idp);
  // Let in by a group claim, not by the email: the email is all that could name her.
  idp.person = { sub: "s-grace-idp", email: "grace@example.com", email_verified: verified };
  idp.idToken = (claims) => ({ ...claims, groups: ["ops"] });
  const bindings = bindingsWith({
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
  });
  const operators = { claim: { name: "groups", value: "ops" }, tenant: "default" };
  const browser = new PersonBrowser(fenceWith(operators), bindings);
  expect((await signInThrough(browser, idp)).status).toBe(200);
  return browser;
}

function approve(browser: PersonBrowser, runId: string, id: string): Promise<Response> {
  return browser.fetch(`/console/runs/${runId}/approvals/${id}`, {
    method: "POST",
    headers: { Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ decision: "approve" }),
  });
}

describe("a named approver's email counts only when their provider verified it", () => {
  it("refuses a person whose unverified email equals a named one; the verified one decides", async () => {
    const { stub, ref, id } = await openedBy(undefined, "SEC-verified-1");
    const unverified = person("s-mallory", "grace@example.com", false);
    const refused = await stub.decide(id, "approve", actBy(unverified, "grace@example.com"));
    expect(refused).toMatchObject({
      kind: "refuse",
      refusal: { reason: "approver_not_allowed" },
    });
    expect((await stub.propose(ref, ticket("SEC-verified-1", "k-deciders-0001"))).kind).toBe(
      "approval",
    );
    const verified = person("s-grace", "grace@example.com");
    const decided = await stub.decide(id, "approve", actBy(verified, "grace@example.com"));
    expect(decided).toMatchObject({ kind: "decided", approval: { status: "approved" } });
  });

  it("keeps matching a `sub:` entry whether or not the email is verified", () => {
    const rule = {
      name: "by_subject",
      always: true as const,
      approvers: { people: ["sub:s-ada"] },
    };
    const ada = deciderOf(person("s-ada", "ada@example.com", false), "ada@example.com");
    expect(mayDecide(rule, ada, null, "apr_1")).toBeNull();
    const other = deciderOf(person("s-eve", "ada@example.com", true), "ada@example.com");
    expect(mayDecide(rule, other, null, "apr_1")).toMatchObject({ reason: "approver_not_allowed" });
  });

  it("carries the sign-in's email_verified through the console session to the decision", async () => {
    const unverified = await graceSignedIn(false);
    const { ref, id } = await openedBy(undefined, "SEC-verified-3");
    const refused = await approve(unverified, ref.runId, id);
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain("did not say it verified your email");

    const verified = await graceSignedIn(true);
    const decided = await approve(verified, ref.runId, id);
    expect(decided.status).toBe(303);
  });
});
