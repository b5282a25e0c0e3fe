import { afterEach, describe, expect, it, vi } from "vitest";
import { connectUrl } from "../../src/connections/connect-link.ts";
import { Browser } from "../oauth/helpers.ts";
import { callNotes, connect, connectUrlOf, onwardOf, pathOf, principal } from "./helpers.ts";
import { AS, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

const SECRET = "test-console-secret-0123456789abcdef";

/** A refused call's link, for a fresh key. */
async function linkFor(role: "agent" | "operator" = "operator") {
  const who = await principal(role);
  const { body } = await callNotes(who);
  const url = connectUrlOf(body);
  return { who, url, link: new URL(url).searchParams.get("link") ?? "" };
}

describe("the connect page", () => {
  it("names the upstream, the tool and the caller, and asks an agent key for itself", async () => {
    new StandIn().install();
    const { url } = await linkFor("agent");
    const res = await new Browser().fetch(pathOf(url));
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Security-Policy")).toContain("form-action 'self'");
    expect(page).toContain("Connect notes.example");
    expect(page).toContain("notes_whoami");
    expect(page).toContain('name="key"');
  });

  it("refuses another key than the one that made the call, and sends nobody on", async () => {
    const standIn = new StandIn().install();
    const { link } = await linkFor();
    const other = await principal();
    const res = await new Browser().post("/console/connections/connect", { link, key: other.key });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Only the principal who made the call");
    expect(standIn.registrations).toEqual([]);
  });

  it("lets the caller's own console session continue without typing the key", async () => {
    const standIn = new StandIn().install();
    const { who, link } = await linkFor();
    const browser = new Browser();
    expect((await browser.post("/console/sign-in", { key: who.key })).status).toBe(303);
    const res = await browser.post("/console/connections/connect", { link });
    expect(res.status).toBe(200);
    expect(onwardOf(await res.text()).startsWith(`${AS}/authorize?`)).toBe(true);
    expect(standIn.registrations).toHaveLength(1);
  });

  it("refuses a form posted from another origin (CSRF)", async () => {
    new StandIn().install();
    const { who, link } = await linkFor();
    const res = await new Browser().post(
      "/console/connections/connect",
      { link, key: who.key },
      "https://evil.example",
    );
    expect(res.status).toBe(403);
  });

  it("works once: the same link cannot start a second flow", async () => {
    new StandIn().install();
    const { who, link } = await linkFor();
    const browser = new Browser();
    expect(
      (await browser.post("/console/connections/connect", { link, key: who.key })).status,
    ).toBe(200);
    const again = await browser.post("/console/connections/connect", { link, key: who.key });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("used already");
  });

  it("refuses a link past its ten minutes, and one the fence did not seal", async () => {
    new StandIn().install();
    const { who } = await linkFor();
    const { body } = await callNotes(who);
    const fresh = new URL(connectUrlOf(body)).searchParams.get("link") ?? "";
    const old = await connectUrl(
      SECRET,
      "http://localhost",
      {
        tenant: "default",
        owner: { kind: "key", key_id: null, label: "development" },
        ownerId: "key.development",
        upstream: "https://notes.example/mcp",
        tool: "notes_whoami",
        scope: null,
      },
      Date.now() - 11 * 60_000,
    );
    expect((await new Browser().fetch(pathOf(old))).status).toBe(410);
    const altered = `${fresh.slice(0, -2)}${fresh.endsWith("A") ? "B" : "A"}${fresh.slice(-1)}`;
    const res = await new Browser().fetch(`/console/connections/connect?link=${altered}`);
    expect(res.status).toBe(400);
  });
});

describe("the callback", () => {
  it("refuses an answer whose state is not this browser's flow", async () => {
    const standIn = new StandIn().install();
    const { who, link } = await linkFor();
    const browser = new Browser();
    const started = await browser.post("/console/connections/connect", { link, key: who.key });
    const back = new URL(await standIn.consent(onwardOf(await started.text()), "ada"));
    back.searchParams.set("state", "forged-state");
    const res = await browser.fetch(pathOf(back.href));
    expect(res.status).toBe(400);
    expect(standIn.grants).toEqual([]);
  });

  it("refuses an answer that comes back in another browser (no flow cookie)", async () => {
    const standIn = new StandIn().install();
    const { who, link } = await linkFor();
    const started = await new Browser().post("/console/connections/connect", {
      link,
      key: who.key,
    });
    const back = await standIn.consent(onwardOf(await started.text()), "ada");
    const res = await new Browser().fetch(pathOf(back));
    expect(res.status).toBe(400);
    expect(standIn.grants).toEqual([]);
  });

  it("refuses an answer from another issuer (RFC 9207) and redeems no code", async () => {
    const standIn = new StandIn({ iss: "https://mallory.example" }).install();
    const { who, url } = await linkFor();
    const { done, text } = await connect(standIn, url, who.key, "ada");
    expect(done.status).toBe(400);
    expect(text).toContain("did not connect");
    expect(standIn.grants).toEqual([]);
  });

  it("redeems the code with the flow's PKCE verifier, and only once", async () => {
    const standIn = new StandIn().install();
    const { who, link } = await linkFor();
    const browser = new Browser();
    const started = await browser.post("/console/connections/connect", { link, key: who.key });
    const back = await standIn.consent(onwardOf(await started.text()), "ada");
    // The stand-in refuses a verifier that does not match the challenge: 200 means it matched.
    expect((await browser.fetch(pathOf(back))).status).toBe(200);
    expect(standIn.grants).toEqual(["authorization_code"]);
    const cookieless = await browser.fetch(pathOf(back));
    expect(cookieless.status).toBe(400);
    expect(standIn.grants).toEqual(["authorization_code"]);
  });
});
