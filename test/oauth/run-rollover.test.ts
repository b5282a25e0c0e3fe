import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dev } from "../helpers.ts";
import { connected, mcp } from "./helpers.ts";

// Only Date is faked: the worker, the library's token checks and the ledger share this
// isolate's clock, and timers keep real time.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Each run of these grants admits `mutations` mutations for 60 s; access tokens live 600 s. */
function consent(mutations: number) {
  return {
    tools: ["create_ticket"],
    max_mutations: mutations,
    max_paid_calls: 5,
    deadline_seconds: 60,
  };
}

interface RpcAnswer {
  result?: { isError?: boolean; content?: { text: string }[] };
}

async function createTicket(token: string): Promise<RpcAnswer> {
  const res = await mcp(token, "tools/call", {
    name: "create_ticket",
    arguments: { ticket_id: `T-${crypto.randomUUID()}`, title: "Printer on fire", priority: "low" },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RpcAnswer;
}

/** The fence's record of the grant issued to `clientId`: its id and current run number. */
async function grantOf(clientId: string): Promise<{ grant: string; run: number }> {
  const listed = await env.OAUTH_KV.list({ prefix: "tf-grant:" });
  for (const key of listed.keys) {
    const record = await env.OAUTH_KV.get<{ grant: string; run: number; client_id: string }>(
      key.name,
      "json",
    );
    if (record?.client_id === clientId) return record;
  }
  throw new Error(`no grant record for ${clientId}`);
}

const runId = (grant: string, n: number) => `oauth.${grant}.${n}`;

function pastDeadline() {
  vi.setSystemTime(Date.now() + 61_000);
}

describe("a grant's run", { timeout: 20_000 }, () => {
  it("rolls over to a new run, with a fresh budget, once past its deadline", async () => {
    const { clientId, tokens } = await connected(consent(2));
    const first = await createTicket(tokens.access_token);
    expect(first.result?.isError).toBeFalsy();
    const { grant } = await grantOf(clientId);
    pastDeadline();
    const second = await createTicket(tokens.access_token);
    expect(second.result?.isError).toBeFalsy();
    expect((await grantOf(clientId)).run).toBe(1);
    const old = await dev.runStatus(runId(grant, 0));
    const next = await dev.runStatus(runId(grant, 1));
    expect(old.budget.mutations.left).toBe(1);
    expect(next.budget.mutations.left).toBe(1);
    expect(next.limits.deadline_ms).toBe(60_000);
    expect(Date.parse(next.created_at)).toBeGreaterThan(Date.parse(old.deadline_at));
  });

  it("stays halted past its deadline: no new run opens by itself", async () => {
    const { clientId, tokens } = await connected(consent(2));
    const { grant } = await grantOf(clientId);
    const halted = await dev.post(`/v1/runs/${runId(grant, 0)}/halt?reason=stop`);
    expect(halted.status).toBe(200);
    pastDeadline();
    const refused = await createTicket(tokens.access_token);
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.content?.[0]?.text).toContain("run_halted");
    expect((await grantOf(clientId)).run).toBe(0);
    expect((await dev.get(`/v1/runs/${runId(grant, 1)}`)).status).toBe(404);
  });

  it("stays spent past its deadline: no new run opens by itself", async () => {
    const { clientId, tokens } = await connected(consent(1));
    const { grant } = await grantOf(clientId);
    expect((await createTicket(tokens.access_token)).result?.isError).toBeFalsy();
    const spent = await createTicket(tokens.access_token);
    expect(spent.result?.content?.[0]?.text).toContain("budget_exhausted");
    pastDeadline();
    // Refused as the run's own ledger refuses it: its deadline has passed, its budget spent.
    const refused = await createTicket(tokens.access_token);
    expect(refused.result?.isError).toBe(true);
    const problem = JSON.parse(refused.result?.content?.[0]?.text ?? "{}") as {
      reason?: string;
      budget?: { mutations: { left: number } };
    };
    expect(problem.reason).toBe("run_deadline_exceeded");
    expect(problem.budget?.mutations.left).toBe(0);
    expect((await grantOf(clientId)).run).toBe(0);
    expect((await dev.get(`/v1/runs/${runId(grant, 1)}`)).status).toBe(404);
  });
});
