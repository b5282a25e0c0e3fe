import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sweepRevokedKeys } from "../../src/connections/revoked-keys.ts";
import { sha256Hex } from "../../src/core/canonical.ts";
import { recordName } from "../../src/core/keys.ts";
import { DEV_KEY } from "../helpers.ts";
import { Browser } from "../oauth/helpers.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { NOTES, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

/** A fresh key of tenant default, connected to the notes server as `sub`. */
async function connected(standIn: StandIn, sub: string, role: "agent" | "operator" = "operator") {
  const who = await principal(role);
  const first = await callNotes(who);
  const { done } = await connect(standIn, connectUrlOf(first.body), who.key, sub);
  expect(done.status).toBe(200);
  expect((await callNotes(who, first.run)).res.status).toBe(200);
  return who;
}

/** The refresh tokens the stand-in issued to `sub`, by the order they were issued. */
function refreshTokensOf(standIn: StandIn): string[] {
  return standIn.issued.filter((t) => t.startsWith("rt-"));
}

async function signedIn(key: string): Promise<Browser> {
  const browser = new Browser();
  expect((await browser.post("/console/sign-in", { key })).status).toBe(303);
  return browser;
}

describe("deleting a connection", () => {
  it("by its owner on their page revokes it at the upstream; their next call asks again", async () => {
    const standIn = new StandIn().install();
    const who = await connected(standIn, "ada");
    const browser = await signedIn(who.key);
    const page = await (await browser.fetch("/console/connections")).text();
    expect(page).toContain("notes.example");
    expect(page).toContain("ada");
    const id = /name="id" value="(cn_[0-9a-f]{24})"/.exec(page)?.[1] ?? "";
    const res = await browser.post("/console/connections/delete", { id });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console/connections?done=1");
    expect(standIn.revoked).toEqual(refreshTokensOf(standIn));
    expect(await (await browser.fetch("/console/connections")).text()).toContain("No connections.");
    const next = await callNotes(who);
    expect(next.res.status).toBe(403);
    connectUrlOf(next.body);
  });

  it("cannot reach another principal's connection from one's own page", async () => {
    const standIn = new StandIn().install();
    const owner = await connected(standIn, "ada");
    const other = await principal();
    const browser = await signedIn(other.key);
    const mine = await (await signedIn(owner.key)).fetch("/console/connections");
    const id = /name="id" value="(cn_[0-9a-f]{24})"/.exec(await mine.text())?.[1] ?? "";
    const res = await browser.post("/console/connections/delete", { id });
    expect(res.headers.get("Location")).toBe("/console/connections?done=0");
    expect((await callNotes(owner)).res.status).toBe(200);
  });

  it("by an operator, one at a time or all of one upstream's, from the tenant's page", async () => {
    const standIn = new StandIn().install();
    const [a, b, c] = [
      await connected(standIn, "ada", "agent"),
      await connected(standIn, "bob", "agent"),
      await connected(standIn, "cy", "agent"),
    ];
    const operator = await signedIn(DEV_KEY);
    const page = await (await operator.fetch("/console/connections/tenant")).text();
    const forms = [
      ...page.matchAll(
        /name="id" value="(cn_[0-9a-f]{24})"[\s\S]*?name="owner_id" value="([^"]+)"/g,
      ),
    ];
    const ownerOfA = `key.${await sha256Hex(a.key)}`;
    const one = forms.find((f) => f[2] === ownerOfA);
    expect(one).toBeDefined();
    const revoked = await operator.post("/console/connections/tenant/revoke", {
      id: one?.[1] ?? "",
      owner_id: ownerOfA,
    });
    expect(revoked.headers.get("Location")).toBe("/console/connections/tenant?done=1");
    expect((await callNotes(a)).res.status).toBe(403);
    expect((await callNotes(b)).res.status).toBe(200);
    const unconfirmed = await operator.post("/console/connections/tenant/revoke-upstream", {
      upstream: NOTES,
    });
    expect(unconfirmed.headers.get("Location")).toBe("/console/connections/tenant?done=0");
    const all = await operator.post("/console/connections/tenant/revoke-upstream", {
      upstream: NOTES,
      confirm: "yes",
    });
    expect(all.headers.get("Location")).toMatch(/done=[2-9]/);
    expect((await callNotes(b)).res.status).toBe(403);
    expect((await callNotes(c)).res.status).toBe(403);
  });

  it("follows its key: once the key is revoked, the scheduled sweep deletes and revokes it", async () => {
    const standIn = new StandIn().install();
    const kept = await connected(standIn, "ada", "agent");
    const gone = await connected(standIn, "bob", "agent");
    await env.API_KEYS.delete(recordName(await sha256Hex(gone.key)));
    expect(await sweepRevokedKeys(env)).toBe(1);
    const bobs = standIn.issued.filter((t) => t.startsWith("rt-")).at(-1);
    expect(standIn.revoked).toEqual([bobs]);
    expect((await callNotes(gone)).res.status).toBe(401);
    expect((await callNotes(kept)).res.status).toBe(200);
    expect(await sweepRevokedKeys(env)).toBe(0);
  });
});
