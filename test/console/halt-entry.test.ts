import { describe, expect, it } from "vitest";
import { callerWith, json, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

describe("the console's halt", () => {
  it("is an audit entry naming the operator and the reason, shown in the timeline", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    const halted = await browser.post(`/console/runs/${run}/halt`, {
      reason: "runaway agent",
      confirm: "yes",
    });
    expect(halted.status).toBe(303);
    const page = await json<{ entries: { decision: string; actor: string; note: string }[] }>(
      await operator.get(`/v1/runs/${run}/audit`),
    );
    const entry = page.entries.find((e) => e.decision === "halted");
    expect(entry?.note).toBe("runaway agent");
    expect(entry?.actor).toMatch(/^[0-9a-f]{64}$/);
    const timeline = await (await browser.get(`/console/runs/${run}`)).text();
    expect(timeline).toContain('data-decision="halted"');
    expect(timeline).toContain("runaway agent");
  });

  it("answers 404 for a run never seen, and does not create it", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    const halted = await browser.post(`/console/runs/${run}/halt`, { reason: "x", confirm: "yes" });
    expect(halted.status).toBe(404);
    expect((await operator.get(`/v1/runs/${run}`)).status).toBe(404);
  });
});
