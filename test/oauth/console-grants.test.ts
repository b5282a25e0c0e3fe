import { describe, expect, it } from "vitest";
import { DEV_KEY } from "../helpers.ts";
import { Browser, connected, mcp } from "./helpers.ts";

async function operator(): Promise<Browser> {
  const browser = new Browser();
  const res = await browser.post("/console/sign-in", { key: DEV_KEY });
  expect(res.status).toBe(303);
  return browser;
}

/** The id of the newest grant on the page (grants are listed newest first). */
function grantIdOn(page: string): string {
  const ids = [...page.matchAll(/id="grant-([0-9a-f]{24})"/g)].map((m) => m[1] ?? "");
  const first = ids[0];
  if (first === undefined) throw new Error("no grant on the page");
  return first;
}

describe("operators see and act on connector grants", { timeout: 20_000 }, () => {
  it("lists a grant with its client, tools, limits and run", async () => {
    await connected();
    const browser = await operator();
    const res = await browser.fetch("/console/grants");
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain("Test Host");
    expect(page).toMatch(/href="\/console\/runs\/oauth\.[0-9a-f]{24}\.0"/);
    expect(page).toContain("<code>noop </code>");
  });

  it("revoking a grant ends its tokens at their next request", async () => {
    const { tokens } = await connected();
    expect((await mcp(tokens.access_token, "tools/list")).status).toBe(200);
    const browser = await operator();
    const page = await (await browser.fetch("/console/grants")).text();
    const id = grantIdOn(page);
    const revoked = await browser.post(`/console/grants/${id}/revoke`, {});
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toContain("is revoked");
    expect((await mcp(tokens.access_token, "tools/list")).status).toBe(401);
  });

  it("tightening a grant narrows its tools at once and refuses a looser limit", async () => {
    const { tokens } = await connected();
    const browser = await operator();
    const page = await (await browser.fetch("/console/grants")).text();
    const id = grantIdOn(page);
    const looser = await browser.post(`/console/grants/${id}/tighten`, {
      tools: ["noop"],
      max_mutations: "50",
      max_paid_calls: "1",
      deadline_seconds: "60",
    });
    expect(looser.status).toBe(422);
    const tightened = await browser.post(`/console/grants/${id}/tighten`, {
      tools: ["noop"],
      max_mutations: "0",
      max_paid_calls: "1",
      deadline_seconds: "60",
    });
    expect(tightened.status).toBe(200);
    const listed = (await (await mcp(tokens.access_token, "tools/list")).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(listed.result.tools.map((t) => t.name)).toEqual(["noop"]);
  });

  it("the grants page needs a signed-in operator", async () => {
    const res = await new Browser().fetch("/console/grants");
    expect(res.status).toBe(303);
  });
});
