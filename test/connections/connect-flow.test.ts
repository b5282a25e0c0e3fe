import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/core/canonical.ts";
import { ownerIdOf } from "../../src/core/connection-owner.ts";
import { auditPage, dev } from "../helpers.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { NOTES, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

/** The connections object of the key `key`. */
async function objectsOfKey(key: string) {
  const ownerId = await ownerIdOf({ kind: "key", key_id: await sha256Hex(key), label: "test" });
  return env.CONNECTIONS.getByName(`default/${ownerId}`);
}

describe("a tool called as the principal", () => {
  it("is refused before anything is charged, with a connect link, when the caller has no connection", async () => {
    new StandIn().install();
    const who = await principal();
    const { res, body, run } = await callNotes(
      who,
      undefined,
      "notes_add_note",
      { text: "hi" },
      "k-note-1",
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    const url = new URL(connectUrlOf(body));
    expect(url.origin).toBe("http://localhost");
    expect(url.pathname).toBe("/console/connections/connect");
    expect(body.budget).toMatchObject({ mutations: { used: 0 }, paid_calls: { used: 0 } });
    const entry = (await auditPage(run)).entries.find((e) => e.call_id === body.call_id);
    expect(entry).toMatchObject({
      decision: "escalate",
      reason: "upstream_authorization_required",
    });
  });

  it("is applied with the caller's own token once they connect, and its entries name that upstream identity", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    const { done, text } = await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    expect(done.status, text).toBe(200);
    expect(text).toContain("Connected");
    // DCR (no CIMD on loopback), PKCE S256, the resource, and the fence's callback.
    expect(standIn.registrations).toHaveLength(1);
    const asked = standIn.authorizations[0];
    expect(asked?.get("resource")).toBe(NOTES);
    expect(asked?.get("redirect_uri")).toBe("http://localhost/console/connections/callback");

    const again = await callNotes(who, first.run);
    expect(again.res.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({
      decision: "applied",
      result: { structuredContent: { subject: "ada" } },
    });
    expect(standIn.calls.map((c) => c.sub)).toEqual(["ada"]);
    const entries = (await auditPage(first.run)).entries.filter(
      (e) => e.call_id === again.body.call_id,
    );
    expect(entries.length).toBe(2);
    for (const entry of entries) {
      expect(entry.principal).toMatchObject({
        kind: "key",
        upstream_identity: { resource: NOTES, subject: "ada" },
      });
    }
    const named = entries[0]?.principal as { upstream_identity?: { connection_id?: string } };
    const identity = named.upstream_identity;
    expect(identity?.connection_id).toMatch(/^cn_[0-9a-f]{24}$/);
  });

  it("keeps the tokens only sealed, with the key's id beside them", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const stored = await runInDurableObject(await objectsOfKey(who.key), async (_, state) =>
      JSON.stringify(state.storage.sql.exec("SELECT * FROM connection").toArray()),
    );
    expect(stored).toContain('"kid":"test"');
    for (const token of standIn.issued) expect(stored).not.toContain(token);
  });

  it("gives each principal its own connection", async () => {
    const standIn = new StandIn().install();
    const [ada, grace] = [await principal(), await principal("agent")];
    const a = await callNotes(ada);
    await connect(standIn, connectUrlOf(a.body), ada.key, "ada");
    const g = await callNotes(grace);
    expect(g.res.status).toBe(403);
    await connect(standIn, connectUrlOf(g.body), grace.key, "grace");
    expect((await callNotes(ada)).body).toMatchObject({
      result: { structuredContent: { subject: "ada" } },
    });
    expect((await callNotes(grace)).body).toMatchObject({
      result: { structuredContent: { subject: "grace" } },
    });
  });

  it("refreshes an expired access token without the person, once for calls that arrive together", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    await runInDurableObject(await objectsOfKey(who.key), (_, state) => {
      state.storage.sql.exec("UPDATE connection SET expires_at = 1, issued_at = 0");
    });
    const calls = await Promise.all([1, 2, 3, 4].map(() => callNotes(who, first.run)));
    for (const c of calls) expect(c.res.status, JSON.stringify(c.body)).toBe(200);
    expect(standIn.grants.filter((g) => g === "refresh_token")).toHaveLength(1);
    const tokens = new Set(standIn.calls.map((c) => c.jti));
    expect(tokens.size).toBe(1);
    expect(standIn.calls.every((c) => c.sub === "ada")).toBe(true);
  });

  it("refreshes, before the next call, a token the upstream refused (401)", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    standIn.dropAccessOf("ada");
    const refused = await callNotes(who, first.run);
    expect(refused.res.status).toBe(502);
    expect(refused.body).toMatchObject({ reason: "upstream_authz", decision: "escalate" });
    const next = await callNotes(who, first.run);
    expect(next.res.status, JSON.stringify(next.body)).toBe(200);
    expect(standIn.grants.filter((g) => g === "refresh_token")).toHaveLength(1);
  });

  it("deletes the connection when its refresh is refused (invalid_grant); the next call asks again", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const objects = await objectsOfKey(who.key);
    expect(await objects.list()).toHaveLength(1);
    standIn.revokeAllOf("ada");
    await runInDurableObject(objects, (_, state) => {
      state.storage.sql.exec("UPDATE connection SET expires_at = 1, issued_at = 0");
    });
    const after = await callNotes(who, first.run);
    expect(after.res.status).toBe(403);
    connectUrlOf(after.body);
    expect(await objects.list()).toEqual([]);
  });

  it("costs a tool that is not called as the principal nothing: its object is never asked", async () => {
    const spy = vi.spyOn(env.CONNECTIONS, "getByName");
    const res = await dev.propose(`run-${crypto.randomUUID()}`, { tool: "noop", args: {} });
    expect(res.status).toBe(200);
    expect(spy).not.toHaveBeenCalled();
  });
});
