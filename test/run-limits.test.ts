import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  callerWith,
  get,
  json,
  newRun,
  propose,
  put,
  type RunLimitsView,
  runStatus,
} from "./helpers.ts";

interface Problem {
  status: number;
  field?: string;
  reason: string;
  detail: string;
}

async function refused(res: Response): Promise<Problem> {
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  return json<Problem>(res);
}

describe("a run's own limits", () => {
  it("refuses limits looser than the policy, naming the field, and opens nothing", async () => {
    const run = newRun();
    const cases: [unknown, string][] = [
      [{ max_mutations: 4 }, "max_mutations"],
      [{ max_paid_calls: 21 }, "max_paid_calls"],
      [{ deadline_ms: 900_001 }, "deadline_ms"],
      [{ allowed_tools: ["noop", "drop_table"] }, "allowed_tools.1"],
      [
        { tools: { add_comment: { max_calls_per_run: 11 } } },
        "tools.add_comment.max_calls_per_run",
      ],
    ];
    for (const [body, field] of cases) {
      const res = await put(`/v1/runs/${run}`, body);
      expect(res.status).toBe(422);
      const problem = await refused(res);
      expect(problem.reason).toBe("override_loosens_policy");
      expect(problem.field).toBe(field);
      expect(problem.detail.startsWith(`${field}:`)).toBe(true);
    }
    expect((await get(`/v1/runs/${run}`)).status).toBe(404);
  });

  it("opens a run with tighter limits, shows them and enforces them", async () => {
    const run = newRun();
    const limits = {
      max_mutations: 1,
      max_paid_calls: 5,
      deadline_ms: 60_000,
      allowed_tools: ["noop", "fetch_service_logs"],
    };
    const opened = await put(`/v1/runs/${run}`, limits);
    expect(opened.status).toBe(201);
    const status = await runStatus(run);
    expect(status.limits).toMatchObject<Partial<RunLimitsView>>(limits);
    expect(Date.parse(status.deadline_at) - Date.parse(status.created_at)).toBe(60_000);
    expect(status.budget.paid_calls.limit).toBe(5);
    const create = await propose(run, {
      tool: "create_ticket",
      args: { ticket_id: `T-${crypto.randomUUID()}` },
      idempotency_key: "k-limits-00001",
    });
    expect(create.status).toBe(403);
    expect(await json(create)).toMatchObject({ reason: "tool_not_allowed" });
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  });

  it("lets an open run be tightened again but never loosened back", async () => {
    const run = newRun();
    expect((await put(`/v1/runs/${run}`, { max_paid_calls: 10 })).status).toBe(201);
    expect((await put(`/v1/runs/${run}`, { max_paid_calls: 10 })).status).toBe(200);
    expect((await put(`/v1/runs/${run}`, { max_paid_calls: 4 })).status).toBe(200);
    const looser = await put(`/v1/runs/${run}`, { max_paid_calls: 8 });
    expect(looser.status).toBe(422);
    expect((await refused(looser)).detail).toMatch(/^max_paid_calls: .*run's current limits/);
    expect((await runStatus(run)).budget.paid_calls.limit).toBe(4);
  });

  it("refuses a limits body that is not valid, naming the path", async () => {
    const res = await put(`/v1/runs/${newRun()}`, { max_mutations: "1", surprise: true });
    expect(res.status).toBe(400);
    const problem = await refused(res);
    expect(problem.reason).toBe("malformed_payload");
    expect(problem.detail).toMatch(/max_mutations: /);
    expect(problem.detail).toMatch(/surprise: /);
  });

  it("starts a run of a tenant with a block of its own with that tenant's tighter limits", async () => {
    const runId = newRun();
    const ref = { tenant: "trial", runId };
    const stub = env.RUN_LEDGER.getByName(`trial/${runId}`);
    const loose = await stub.open(ref, { max_mutations: 2 }, true);
    expect(loose.kind === "refuse" && loose.refusal.reason).toBe("override_loosens_policy");
    const opened = await stub.open(ref, {}, true);
    expect(opened.kind === "opened" && opened.view.limits).toMatchObject({
      max_mutations: 1,
      max_paid_calls: 5,
      deadline_ms: 300_000,
    });
  });

  it("gives a run of a key whose tenant has a block of its own that block's limits", async () => {
    const trial = await callerWith({ tenant: "trial" });
    const run = newRun();
    expect((await trial.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await trial.runStatus(run)).limits).toMatchObject({
      max_mutations: 1,
      max_paid_calls: 5,
      deadline_ms: 300_000,
    });
    const loose = await trial.put(`/v1/runs/${newRun()}`, { max_mutations: 2 });
    expect(loose.status).toBe(422);
    expect(await json(loose)).toMatchObject({ field: "max_mutations" });
  });
});
