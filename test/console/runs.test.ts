import { describe, expect, it, vi } from "vitest";
import { callerWith, json, newRun } from "../helpers.ts";
import { ConsoleClient, signedIn } from "./browser.ts";

async function operatorWithConsole() {
  const operator = await callerWith({ role: "operator" });
  return { operator, browser: await signedIn(operator.key ?? "") };
}

describe("console runs", () => {
  it("lists the tenant's runs, newest activity first, filtered by status", async () => {
    const { operator, browser } = await operatorWithConsole();
    const other = await callerWith({ role: "operator" });
    const [older, newer, theirs] = [newRun(), newRun(), newRun()];
    await operator.propose(older, { tool: "noop", args: {} });
    await operator.propose(newer, { tool: "noop", args: {} });
    await other.propose(theirs, { tool: "noop", args: {} });
    // The halt is an entry of the log too: the older run's call after it is the newest activity.
    await operator.post(`/v1/runs/${newer}/halt?reason=test`);
    await operator.propose(older, { tool: "noop", args: {} });
    // A run is indexed just after its first answer, so the list is waited for, briefly.
    await vi.waitFor(
      async () => {
        const page = await (await browser.get("/console/runs?sort=activity")).text();
        expect(page.indexOf(older)).toBeGreaterThan(0);
        expect(page.indexOf(older)).toBeLessThan(page.indexOf(newer));
        expect(page).not.toContain(theirs);
      },
      { timeout: 2_000, interval: 20 },
    );
    const halted = await (await browser.get("/console/runs?status=halted")).text();
    expect(halted).toContain(newer);
    expect(halted).not.toContain(older);
  });

  it("shows a blocked call's issues and payload as received", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    const bad = { tool: "fetch_service_logs", args: { service: 42, window_minutes: "lots" } };
    expect((await operator.propose(run, bad)).status).toBe(422);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(page).toContain("contract_violation");
    expect(page).toMatch(/class="issues".*window_minutes/s);
    expect(page).toContain("&quot;lots&quot;");
  });

  it("halts a run with a confirmed reason, and the API then refuses its calls", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const unconfirmed = await browser.post(`/console/runs/${run}/halt`, { reason: "stop" });
    expect(unconfirmed.status).toBe(422);
    expect((await operator.runStatus(run)).status).toBe("open");
    const halted = await browser.post(`/console/runs/${run}/halt`, {
      reason: "runaway agent",
      confirm: "yes",
    });
    expect(halted.status).toBe(303);
    expect(await operator.runStatus(run)).toMatchObject({
      status: "halted",
      halt_reason: "runaway agent",
    });
    const refused = await operator.propose(run, { tool: "noop", args: {} });
    expect(await json(refused)).toMatchObject({ reason: "run_halted" });
  });

  it("tightens a run's limits and refuses loosening them", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const looser = await browser.post(`/console/runs/${run}/limits`, { max_mutations: "99" });
    expect(looser.status).toBe(422);
    expect(await looser.text()).toContain("max_mutations");
    const tighter = await browser.post(`/console/runs/${run}/limits`, {
      max_mutations: "1",
      allowed_tools: ["noop", "get_ticket"],
    });
    expect(tighter.status).toBe(303);
    const status = await operator.runStatus(run);
    expect(status.limits).toMatchObject({
      max_mutations: 1,
      allowed_tools: ["noop", "get_ticket"],
    });
  });

  it("never shows or acts on another tenant's run", async () => {
    const { browser } = await operatorWithConsole();
    const other = await callerWith({ role: "operator" });
    const run = newRun();
    await other.propose(run, { tool: "noop", args: {} });
    expect((await browser.get(`/console/runs/${run}`)).status).toBe(404);
    const halt = await browser.post(`/console/runs/${run}/halt`, { reason: "x", confirm: "yes" });
    expect(halt.status).toBe(404);
    expect((await other.runStatus(run)).status).toBe("open");
  });

  it("answers an unknown console page with an HTML 404, and only once signed in", async () => {
    const { browser } = await operatorWithConsole();
    const missing = await browser.get("/console/no-such-page");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Content-Type")).toContain("text/html");
    const anonymous = await new ConsoleClient().get("/console/no-such-page");
    expect(anonymous.status).toBe(303);
  });

  it("downloads the audit log as NDJSON, one entry per line", async () => {
    const { operator, browser } = await operatorWithConsole();
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    await operator.propose(run, { tool: "no_such_tool", args: {} });
    const res = await browser.get(`/console/runs/${run}/audit.ndjson`);
    expect(res.headers.get("Content-Type")).toContain("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.seq, l.decision])).toEqual([
      [1, "applied"],
      [2, "block"],
    ]);
  });

  it("lists every tool with its schema, effect, timeout, TTL and policy rules", async () => {
    const { browser } = await operatorWithConsole();
    const page = await (await browser.get("/console/tools")).text();
    expect(page).toContain('id="tool-create_ticket"');
    expect(page).toContain("per ticket_id, across all of the tenant&#39;s runs");
    expect(page).toContain("&quot;properties&quot;");
    expect(page).toMatch(/At most 10 call\(s\) per run/);
  });
});
