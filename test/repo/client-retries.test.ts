import { describe, expect, it } from "vitest";
import { createClient } from "../../client/index.ts";

/** A fake fence that answers from a script and records what it was sent. */
function scripted(answers: { status: number; body: object; headers?: Record<string, string> }[]) {
  const sent: { key: unknown; at: number }[] = [];
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { idempotency_key?: unknown };
    sent.push({ key: body.idempotency_key, at: Date.now() });
    const a = answers[Math.min(sent.length - 1, answers.length - 1)];
    return Response.json(a?.body, { status: a?.status, headers: a?.headers });
  };
  return { sent, run: createClient({ url: "http://fence.test", key: "k", fetch }).run("r1") };
}

const retry = {
  status: 504,
  body: { decision: "retry", reason: "upstream_timeout" },
  headers: { "Retry-After": "0" },
};
const applied = { status: 200, body: { decision: "applied", result: { ok: true } } };
const args = { ticket_id: "T-1", body: "x" };

describe("the client's retries", () => {
  it("retries a retry answer with the same key until it applies", async () => {
    const { sent, run } = scripted([retry, retry, applied]);
    const outcome = await run.call("add_comment", args, { key: "k-retry-0001" });
    expect(outcome.decision).toBe("applied");
    expect(sent.map((s) => s.key)).toEqual(["k-retry-0001", "k-retry-0001", "k-retry-0001"]);
  });

  it("stops after its attempts and returns the last retry answer", async () => {
    const { sent, run } = scripted([retry]);
    const outcome = await run.call("add_comment", args, { key: "k-retry-0002", attempts: 2 });
    expect(outcome).toMatchObject({ decision: "retry", status: 504 });
    expect(sent).toHaveLength(2);
  });

  it.each(["block", "escalate", "needs_approval"])("never retries %s", async (decision) => {
    const { sent, run } = scripted([{ status: 403, body: { decision, reason: "x" } }, applied]);
    expect((await run.call("add_comment", args, { key: "k-retry-0003" })).decision).toBe(decision);
    expect(sent).toHaveLength(1);
  });

  it("waits as long as Retry-After says, within its cap", async () => {
    const slow = { ...retry, headers: { "Retry-After": "1" } };
    const { sent, run } = scripted([slow, applied]);
    await run.call("noop", {}, { maxWaitMs: 200 });
    const waited = (sent[1]?.at ?? 0) - (sent[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(1000);
  });

  it("reads a Retry-After given as an HTTP date", async () => {
    const date = new Date(Date.now() + 5_000).toUTCString();
    const { sent, run } = scripted([{ ...retry, headers: { "Retry-After": date } }, applied]);
    await run.call("noop", {}, { backoffMs: 1, maxWaitMs: 200 });
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(190);
  });
});
