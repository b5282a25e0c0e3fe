import { describe, expect, it, vi } from "vitest";
import { callerWith, newRun } from "../helpers.ts";
import { signedIn } from "./browser.ts";

/** The chart `id` on a page: its whole figure. */
function figure(page: string, id: string): string {
  const found = new RegExp(`<figure class="chart" id="${id}">(.*?)</figure>`, "s").exec(page);
  expect(found, id).not.toBeNull();
  return found?.[1] ?? "";
}

/** A chart's table as rows of cell texts, header first. */
function rows(figure: string): string[][] {
  const table = /<table>(.*?)<\/table>/s.exec(figure)?.[1] ?? "";
  return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].map((r) =>
    [...(r[1] ?? "").matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/gs)].map((c) =>
      (c[1] ?? "").replace(/<[^>]+>/g, ""),
    ),
  );
}

function ticket() {
  return {
    tool: "create_ticket",
    args: { ticket_id: `T-${crypto.randomUUID()}`, title: "Disk full", priority: "high" },
    idempotency_key: `k-${crypto.randomUUID()}`,
  };
}

const BAD = { tool: "fetch_service_logs", args: { service: 42, window_minutes: "lots" } };

describe("the console draws its numbers as SVG charts with the same numbers in tables", () => {
  it("draws a run's calls by decision and its mutations against their limit", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const run = newRun();
    expect((await operator.put(`/v1/runs/${run}`, { max_mutations: 3 })).status).toBeLessThan(300);
    expect((await operator.propose(run, ticket())).status).toBe(200);
    expect((await operator.propose(run, ticket())).status).toBe(200);
    expect((await operator.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await operator.propose(run, BAD)).status).toBe(422);
    const page = await (await browser.get(`/console/runs/${run}`)).text();

    const decisions = figure(page, "chart-decisions");
    expect(decisions).toMatch(/<svg viewBox="0 0 \d+ \d+" role="img"/);
    expect(decisions).toContain('<rect class="bar d-applied"');
    expect(decisions).toContain('<rect class="bar d-block"');
    const [head, ...bins] = rows(decisions);
    expect(head).toEqual(["From", "applied", "block", "Total"]);
    const sum = (col: number) => bins.reduce((n, r) => n + Number(r[col]), 0);
    expect([sum(1), sum(2), sum(3)]).toEqual([3, 1, 4]);

    const mutations = figure(page, "chart-mutations");
    expect(mutations).toContain('<polyline class="burn"');
    expect(mutations).toContain("limit 3");
    const burn = rows(mutations);
    expect(burn[0]).toEqual(["From", "Used", "Limit"]);
    expect(burn.at(-1)?.slice(1)).toEqual(["2", "3"]);
    expect(page).toContain('id="chart-paid-calls"');
  });

  it("draws the tenant's calls and refusals per minute and its top refusal reasons", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "");
    const [one, two] = [newRun(), newRun()];
    expect((await operator.propose(one, { tool: "noop", args: {} })).status).toBe(200);
    expect((await operator.propose(one, BAD)).status).toBe(422);
    expect((await operator.propose(two, { tool: "noop", args: {} })).status).toBe(200);
    expect((await operator.propose(two, BAD)).status).toBe(422);
    expect((await operator.propose(two, { tool: "no_such_tool", args: {} })).status).toBe(422);
    // A run is indexed just after its first answer, so the page is waited for, briefly.
    await vi.waitFor(
      async () => {
        const page = await (await browser.get("/console/runs")).text();
        const perMinute = figure(page, "chart-per-minute");
        expect(perMinute).toContain('<rect class="bar d-block"');
        const [head, ...minutes] = rows(perMinute);
        expect(head).toEqual(["From", "not refused", "refused", "Total"]);
        const sum = (col: number) => minutes.reduce((n, r) => n + Number(r[col]), 0);
        expect([sum(1), sum(2), sum(3)]).toEqual([2, 3, 5]);
        const reasons = rows(figure(page, "chart-reasons"));
        expect(reasons[0]).toEqual(["Reason", "Refusals"]);
        expect(reasons[1]).toEqual(["contract_violation", "2"]);
        expect(reasons).toHaveLength(3);
      },
      { timeout: 2_000, interval: 20 },
    );
  });
});
