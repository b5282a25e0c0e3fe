import { describe, expect, it } from "vitest";
import { callerWith, DEV_KEY } from "../helpers.ts";
import { ConsoleClient, signedIn } from "./browser.ts";

describe("console sign-in", () => {
  it("sets a signed, HttpOnly, Secure, SameSite=Strict cookie holding no key", async () => {
    const operator = await callerWith({ role: "operator" });
    const client = new ConsoleClient();
    const res = await client.post("/console/sign-in", { key: operator.key ?? "" });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console/runs");
    const cookie = res.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(operator.key ?? "");
    expect(cookie).toContain(operator.tenant);
    expect((await client.get("/console/runs")).status).toBe(200);
  });

  it("refuses an agent key and an unknown key, and sets no cookie", async () => {
    const agent = await callerWith({ role: "agent" });
    const client = new ConsoleClient();
    const asAgent = await client.post("/console/sign-in", { key: agent.key ?? "" });
    expect(asAgent.status).toBe(403);
    expect(await asAgent.text()).toContain("agent key");
    const unknown = await client.post("/console/sign-in", { key: "tf_not_a_key_anyone_holds" });
    expect(unknown.status).toBe(401);
    expect(client.cookie).toBeNull();
    expect((await client.get("/console/runs")).status).toBe(303);
  });

  it("refuses a cross-site form post (CSRF)", async () => {
    const client = new ConsoleClient();
    const res = await client.post("/console/sign-in", { key: DEV_KEY }, "https://evil.example");
    expect(res.status).toBe(403);
    expect(client.cookie).toBeNull();
  });

  it("refuses a tampered cookie", async () => {
    const client = await signedIn(DEV_KEY);
    const [name, value = ""] = (client.cookie ?? "").split("=");
    client.cookie = `${name}=${value.replace("default", "other")}`;
    const res = await client.get("/console/runs");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/console?next=%2Fconsole%2Fruns");
  });

  it("ends the session on sign-out, copies of its cookie too, and when the key is revoked", async () => {
    const client = await signedIn(DEV_KEY);
    const copy = new ConsoleClient();
    copy.cookie = client.cookie;
    expect((await copy.get("/console/runs")).status).toBe(200);
    expect((await client.post("/console/sign-out", {})).status).toBe(303);
    expect(client.cookie).toBeNull();
    expect((await client.get("/console/runs")).status).toBe(303);
    expect((await copy.get("/console/runs")).status).toBe(303);

    const operator = await callerWith({ role: "operator" });
    const revoked = await signedIn(operator.key ?? "");
    expect((await revoked.get("/console/runs")).status).toBe(200);
    const { env } = await import("cloudflare:workers");
    const { sha256Hex } = await import("../../src/core/canonical.ts");
    await env.API_KEYS.delete(`key:${await sha256Hex(operator.key ?? "")}`);
    expect((await revoked.get("/console/runs")).status).toBe(303);
  });

  it("honours a development-key session only under local development", async () => {
    const client = await signedIn(DEV_KEY);
    expect((await client.get("/console/runs")).status).toBe(200);
    // Cloudflare's edge adds CF-Ray to every request it forwards: the worker is deployed.
    expect((await client.get("/console/runs", { "CF-Ray": "8f00000000000000-LHR" })).status).toBe(
      303,
    );
  });

  it("serves every page with a strict Content-Security-Policy", async () => {
    const res = await new ConsoleClient().get("/console");
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await res.text()).not.toMatch(/<script>|https?:\/\/(?!localhost)/);
  });
});
