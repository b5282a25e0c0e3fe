import { describe, expect, it, vi } from "vitest";
import { signedIn } from "../console/browser.ts";
import { callerWith, newRun } from "../helpers.ts";

describe("the grants page carries the console's header counts", () => {
  it("counts the tenant's halted runs in the grants page's header", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    await operator.propose(run, { tool: "noop", args: {} });
    await operator.post(`/v1/runs/${run}/halt?reason=runaway`);
    // A run is indexed just after its first answer, so the count is waited for, briefly.
    await vi.waitFor(
      async () => {
        const res = await browser.get("/console/grants");
        expect(res.status).toBe(200);
        const page = await res.text();
        expect(page).toContain('aria-label="Needs a person"');
        expect(page).toMatch(/<span class="num">1<\/span> halted/);
      },
      { timeout: 2_000, interval: 20 },
    );
  });
});
