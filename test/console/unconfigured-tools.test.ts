import { describe, expect, it } from "vitest";
import { callerWith, get, json, newRun } from "../helpers.ts";
import { consentPage, pkce, register } from "../oauth/helpers.ts";
import { signedIn } from "./browser.ts";

// The reference server's and the knowledge base's tools need MCP_EVERYTHING_URL and MCP_KB_URL,
// which these tests do not set: GET /v1/tools and tools/list leave them out, and so must every
// page that offers tools to someone.
const UNCONFIGURED = { everything_echo: "MCP_EVERYTHING_URL", kb_search: "MCP_KB_URL" };

/** The tool names `GET /v1/tools` offers and those it leaves out. */
async function catalogue() {
  const body = await json<{ tools: { name: string }[]; unavailable: { name: string }[] }>(
    await get("/v1/tools"),
  );
  return { offered: body.tools.map((t) => t.name), left: body.unavailable.map((u) => u.name) };
}

/** The text of the tools page's card of `tool`. */
function card(page: string, tool: string): string {
  const at = page.indexOf(`id="tool-${tool}"`);
  if (at < 0) throw new Error(`no card for ${tool}`);
  return page.slice(at, page.indexOf("</section>", at));
}

describe("tools whose upstream is not configured, in the console", () => {
  it("are marked on the tools page with what they lack, as GET /v1/tools leaves them out", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const page = await (await browser.get("/console/tools")).text();
    const { offered, left } = await catalogue();
    for (const [tool, variable] of Object.entries(UNCONFIGURED)) {
      expect(left).toContain(tool);
      expect(card(page, tool)).toContain(`Not offered here: ${variable} is not set`);
    }
    for (const tool of offered) expect(card(page, tool)).not.toContain("Not offered here");
  });

  it("are marked in a run's tighten form", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    const form = page.slice(
      page.indexOf('id="limits"'),
      page.indexOf("</form>", page.indexOf('id="limits"')),
    );
    for (const [tool, variable] of Object.entries(UNCONFIGURED)) {
      expect(form).toMatch(
        new RegExp(
          `<code>${tool}</code>[^<]*<span class="muted"> \\(not offered here: ${variable} is not set\\)`,
        ),
      );
    }
    expect(form).toMatch(/<code>noop<\/code><\/label>/);
  });

  it("are left out of the consent page, which names no file of the repository", async () => {
    const { challenge } = await pkce();
    const { page } = await consentPage(await register(), challenge);
    const granted = [...page.matchAll(/name="tools" value="([^"]+)"/g)].map((m) => m[1]);
    const { offered } = await catalogue();
    expect(granted).toEqual(offered);
    for (const tool of Object.keys(UNCONFIGURED)) expect(granted).not.toContain(tool);
    expect(page).not.toMatch(/docs\/|\.md\b/);
  });
});
