import { afterEach, describe, expect, it, vi } from "vitest";
import { caller, DEV_KEY, dev, json, newRun } from "./helpers.ts";

/** The decision lines written while `work` ran. */
async function decisionLines(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  await work();
  const lines = log.mock.calls
    .map(([first]) => (typeof first === "string" ? first : ""))
    .filter((text) => text.includes('"event":"toolfence.decision"'));
  return lines.map((text) => JSON.parse(text) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the decision log line", () => {
  it("is one JSON line per decision with the audit's public fields and no argument", async () => {
    const run = newRun("log");
    const marker = `never-logged-${crypto.randomUUID()}`;
    const fence = caller(DEV_KEY);
    const lines = await decisionLines(async () => {
      await fence.propose(run, { tool: "noop", args: {} });
      await fence.propose(run, {
        tool: "create_ticket",
        args: { ticket_id: marker, priority: "URGENT" },
        idempotency_key: "k-log-0001",
      });
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      event: "toolfence.decision",
      decision: "applied",
      status: 200,
      tool: "noop",
      tenant: "default",
      run_id: run,
      principal: "dev",
      call_id: expect.any(String),
    });
    expect(lines[1]).toMatchObject({
      decision: "block",
      reason: "contract_violation",
      status: 422,
      tool: "create_ticket",
    });
    expect(JSON.stringify(lines)).not.toContain(marker);
  });

  it("names a tool no contract has bounded and printable, as the answer and the audit do", async () => {
    const run = newRun("log");
    const name = `probe\u202e\u0007${"n".repeat(57_000)}`;
    let answer = "";
    const lines = await decisionLines(async () => {
      const res = await dev.propose(run, { tool: name, args: {} });
      expect(res.status).toBe(422);
      answer = await res.text();
    });
    expect(lines).toHaveLength(1);
    const tool = String(lines[0]?.tool);
    expect(tool.startsWith("probe")).toBe(true);
    expect(tool.length).toBeLessThanOrEqual(129);
    expect(tool).toMatch(/^[^\p{Cc}\p{Cf}]*$/u);
    expect(answer.length).toBeLessThan(1_000);
    const audit = await json<{ entries: { tool: string | null }[] }>(
      await dev.get(`/v1/runs/${run}/audit`),
    );
    expect(audit.entries[0]?.tool?.length).toBeLessThanOrEqual(129);
  });
});
