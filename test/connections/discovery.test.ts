/**
 * RFC 8414 discovery with the OpenID Connect fallback: an authorization server that publishes
 * only `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4, as identity
 * providers whose issuer has a path do) and no `/.well-known/oauth-authorization-server` is
 * found, and the connection made with it works.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Browser } from "../oauth/helpers.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { OPENID_ISSUER, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

// The first connection of a file loads the MCP SDK, which takes seconds on a shared machine.
describe("an authorization server with OpenID Connect Discovery metadata only", {
  timeout: 30_000,
}, () => {
  it("is discovered after the RFC 8414 locations, and the connection it makes is used", async () => {
    const standIn = new StandIn({ openidOnly: true }).install();
    const who = await principal();
    const first = await callNotes(who);
    const { done, text } = await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    expect(done.status, text).toBe(200);
    expect(text).toContain("Connected");
    // RFC 8414 §3.1 first (path inserted), then OpenID's two forms, the issuer's own last.
    const path = new URL(OPENID_ISSUER).pathname;
    expect(standIn.metadata).toEqual([
      `/.well-known/oauth-authorization-server${path} 404`,
      `/.well-known/openid-configuration${path} 404`,
      `${path}/.well-known/openid-configuration 200`,
    ]);
    // The code came back with the OpenID issuer as `iss` (RFC 9207), checked against it.
    expect(standIn.authorizations).toHaveLength(1);

    const again = await callNotes(who, first.run);
    expect(again.res.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({
      decision: "applied",
      result: { structuredContent: { subject: "ada" } },
    });
  });

  it("keeps its document's revocation endpoint: deleting a connection revokes it there", async () => {
    const standIn = new StandIn({ openidOnly: true }).install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const browser = new Browser();
    expect((await browser.post("/console/sign-in", { key: who.key })).status).toBe(303);
    const page = await (await browser.fetch("/console/connections")).text();
    const id = /name="id" value="(cn_[0-9a-f]{24})"/.exec(page)?.[1] ?? "";
    const res = await browser.post("/console/connections/delete", { id });
    expect(res.headers.get("Location")).toBe("/console/connections?done=1");
    // Its revocation_endpoint is in the OpenID document only (RFC 7009).
    expect(standIn.revoked).toEqual(standIn.issued.filter((t) => t.startsWith("rt-")));
  });
});
