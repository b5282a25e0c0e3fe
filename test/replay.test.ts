import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { noop } from "../contracts/noop.ts";
import { CONTRACTS } from "../demo/contracts/index.ts";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { FENCE } from "../demo/fence.ts";
import { type Fence, loadFence } from "../src/core/policy.ts";
import { formatReport, parseAudit, replayAudit } from "../src/core/replay.ts";
import { MAX_JSON_DEPTH } from "../src/http/limits.ts";
import saved from "./fixtures/audit-incident-42.ndjson?raw";
import { get, newRun, post, propose, ticketCall } from "./helpers.ts";

function fenceOf(source: unknown, contracts = CONTRACTS): Fence {
  const loaded = loadFence(source, contracts);
  if (!loaded.ok) throw new Error(loaded.error.join("\n"));
  return loaded.value;
}

/** A run that meets the target cap, the budget and the contract, saved as NDJSON. */
async function savedAudit(): Promise<string> {
  const run = newRun();
  const [t1, t2, t3, t4] = [1, 2, 3, 4].map(() => `T-${crypto.randomUUID()}`);
  const create = (t: string | undefined, k: string) =>
    propose(run, ticketCall("create_ticket", { ticket_id: t }, `k-${k}-${run}`.slice(0, 100)));
  await propose(run, { tool: "noop", args: { note: "hello" } }); // seq 1 applied
  await create(t1, "c1"); // seq 2 pending, 3 applied
  await create(t1, "c2"); // 4 target_cap_exhausted
  await create(t2, "c3"); // 5 pending, 6 applied
  await create(t2, "c3"); // 7 replayed
  await create(t3, "c4"); // 8 pending, 9 applied
  await create(t4, "c5"); // 10 budget_exhausted
  await propose(run, { tool: "fetch_service_logs", args: { service: "api", window: "1 day" } }); // 11
  await post(`/v1/runs/${run}/halt`);
  await propose(run, { tool: "noop", args: {} }); // 12 run_halted
  const res = await get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" });
  return res.text();
}

async function replay(ndjson: string, fence: Fence) {
  const records = parseAudit(ndjson);
  if (!records.ok) throw new Error(records.error.join("\n"));
  return replayAudit(records.value, { fence, tenant: "default", maxDepth: MAX_JSON_DEPTH });
}

describe("replaying a saved audit", () => {
  it("reproduces every fence decision under the policy that made them", async () => {
    const report = await replay(await savedAudit(), FENCE);
    expect(report.calls.map((c) => c.before)).toEqual([
      "admitted",
      "admitted",
      "target_cap_exhausted",
      "admitted",
      "replayed",
      "admitted",
      "budget_exhausted",
      "contract_violation",
      "run_halted",
    ]);
    expect(report.changed).toEqual([]);
  });

  it("reports exactly the decisions a looser budget and no per-ticket rule would change", async () => {
    const { create_ticket: _, ...tools } = policy.tools;
    const report = await replay(
      await savedAudit(),
      fenceOf({ ...policy, max_mutations: 5, tools }),
    );
    // seqs of the log: a call that reached its tool is two entries (pending, then its outcome).
    expect(report.changed.map((c) => [c.seq, c.before, c.after])).toEqual([
      [4, "target_cap_exhausted", "admitted"],
      [10, "budget_exhausted", "admitted"],
    ]);
  });

  it("reports exactly the decisions a tighter contract or a new tool cap would change", async () => {
    const strictNoop = {
      ...noop,
      input: v.strictObject({ note: v.optional(v.pipe(v.string(), v.maxLength(3))) }),
    };
    const contracts = CONTRACTS.map((c) => (c.name === "noop" ? strictNoop : c));
    const capped = { ...policy.tools, create_ticket: { max_calls_per_run: 1 } };
    const report = await replay(
      await savedAudit(),
      fenceOf({ ...policy, tools: capped }, contracts),
    );
    expect(report.changed.map((c) => [c.seq, c.before, c.after])).toEqual([
      [1, "admitted", "contract_violation"],
      [4, "target_cap_exhausted", "tool_cap_exhausted"],
      [5, "admitted", "tool_cap_exhausted"],
      [7, "replayed", "tool_cap_exhausted"],
      [8, "admitted", "tool_cap_exhausted"],
      [10, "budget_exhausted", "tool_cap_exhausted"],
    ]);
  });

  it("replays the policy guide's saved audit against the edited policy it reviews", async () => {
    const next = {
      ...policy,
      max_mutations: 5,
      tools: { ...policy.tools, add_comment: { max_calls_per_run: 2 } },
    };
    const report = await replay(saved, fenceOf(next));
    expect(report.calls).toHaveLength(8);
    expect(report.changed).toEqual([
      { seq: 6, tool: "add_comment", before: "budget_exhausted", after: "tool_cap_exhausted" },
      { seq: 7, tool: "create_ticket", before: "budget_exhausted", after: "admitted" },
    ]);
    expect(formatReport(report)).toContain(
      "1 call blocked (budget_exhausted) before would now be admitted",
    );
  });

  it("leaves out a call whose payload the audit cut, and names it", async () => {
    const lines = saved.trimEnd().split("\n");
    const first = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
    const cut = [JSON.stringify({ ...first, payload_truncated: true }), ...lines.slice(1)].join(
      "\n",
    );
    const report = await replay(cut, FENCE);
    expect(report.skipped).toEqual([1]);
    expect(report.calls.map((c) => c.seq)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it("keeps a call served from the cache free and uncapped, as the ledger does", async () => {
    const lines = saved.trimEnd().split("\n");
    const first = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
    const hit = [JSON.stringify({ ...first, decision: "cached" }), ...lines.slice(1)].join("\n");
    const tools = { ...policy.tools, fetch_service_logs: { max_calls_per_run: 0 } };
    const capped = fenceOf({ ...policy, tools });
    const report = await replay(hit, capped);
    expect(report.calls[0]).toMatchObject({ tool: "fetch_service_logs", after: "admitted" });
    expect(report.changed).toEqual([]);
    const uncached = await replay(saved, capped);
    expect(uncached.changed.map((c) => [c.seq, c.after])).toEqual([[1, "tool_cap_exhausted"]]);
  });
});
