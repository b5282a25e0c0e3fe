import { describe, expect, it } from "vitest";
import { callerWith, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

async function operatorWithConsole() {
  const operator = await callerWith({ role: "operator" });
  return { operator, browser: await signedIn(operator.key ?? "") };
}

describe("the console speaks in the units people use", () => {
  it("takes a deadline typed as 15m, and refuses one that is not a duration as a form error", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const bad = await browser.post(`/console/runs/${run}/limits`, { deadline: "soon" });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("is not a duration: write it like 15m, 1h or 90s");
    const tighter = await browser.post(`/console/runs/${run}/limits`, { deadline: "15m" });
    expect(tighter.status).toBe(303);
    expect((await operator.runStatus(run)).limits.deadline_ms).toBe(15 * 60_000);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(page).toMatch(/name="deadline" type="text" value="15m"/);
  });

  it("shows every time in UTC with one format, and versions as the contract writes them", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    const times = page.match(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^<"]*/g) ?? [];
    expect(times.length).toBeGreaterThan(1);
    for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const script = await (await browser.get("/console/assets/console.js")).text();
    expect(script).not.toContain("toLocaleTimeString");
    expect(script).toContain('toISOString().replace("T", " ").slice(0, 19) + " UTC"');
    const tools = await (await browser.get("/console/tools")).text();
    expect(tools).toContain('<span class="muted">v1</span>');
    expect(tools).not.toContain("vv1");
  });
});
