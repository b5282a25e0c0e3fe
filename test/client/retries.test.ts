import { createClient, type Decision, intentKey } from "toolfence/client";
import { describe, expect, it } from "vitest";

/** A fence that answers the scripted responses in order and records every request. */
function scriptedFence(answers: Array<{ status: number; body: object; headers?: object }>) {
  const requests: Array<{ key: unknown; body: string }> = [];
  const fetch = async (_input: RequestInfo | URL, init?: RequestInit) => {
    const body = String(init?.body);
    requests.push({
      key: (JSON.parse(body) as { idempotency_key?: string }).idempotency_key,
      body,
    });
    const next = answers.shift();
    if (next === undefined) throw new TypeError("no more answers");
    return new Response(JSON.stringify(next.body), {
      status: next.status,
      headers: { "Content-Type": "application/json", ...next.headers },
    });
  };
  const waits: number[] = [];
  const client = createClient({
    url: "http://fence.test",
    key: "tf_test",
    fetch,
    retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
  });
  return { run: client.run("r-1"), requests, waits };
}

const applied = { decision: "applied", result: { ok: true }, call_id: "c", budget: {} };
const inUse = { decision: "retry", reason: "idempotency_key_in_use", status: 409 };

describe("the client retries only what the decision table says to", () => {
  it("retries a retry decision with the same key and body, honouring Retry-After", async () => {
    const fence = scriptedFence([
      { status: 409, body: inUse, headers: { "Retry-After": "2" } },
      { status: 502, body: { decision: "retry", reason: "upstream_unavailable" } },
      { status: 200, body: applied },
    ]);
    const key = intentKey("comment", "T-1");
    const answer = await fence.run.call("add_comment", { ticket_id: "T-1", body: "x" }, { key });
    expect(answer).toMatchObject({ decision: "applied", status: 200 });
    expect(fence.requests.map((r) => r.key)).toEqual([key, key, key]);
    expect(new Set(fence.requests.map((r) => r.body)).size).toBe(1);
    // Retry-After 2 s outweighs the jittered 125 ms; the second wait is jitter over 500 ms.
    expect(fence.waits).toEqual([2000, 250]);
  });

  it("never retries block or escalate", async () => {
    for (const decision of ["block", "escalate"]) {
      const fence = scriptedFence([{ status: 422, body: { decision, reason: "x" } }]);
      const answer: Decision = await fence.run.propose("noop", {});
      expect(answer.decision).toBe(decision);
      expect(fence.requests).toHaveLength(1);
    }
  });

  it("gives the retry decision back after a bounded number of attempts", async () => {
    const fence = scriptedFence(Array.from({ length: 10 }, () => ({ status: 409, body: inUse })));
    const answer = await fence.run.propose("add_comment", {}, { key: "k-12345678" });
    expect(answer).toMatchObject({ decision: "retry", reason: "idempotency_key_in_use" });
    expect(fence.requests).toHaveLength(4);
  });

  it("does not wait longer than it may: a long Retry-After returns the decision", async () => {
    const limited = { decision: "retry", reason: "rate_limited", status: 429 };
    const fence = scriptedFence([{ status: 429, body: limited, headers: { "Retry-After": "60" } }]);
    const answer = await fence.run.propose("noop", {});
    expect(answer.decision).toBe("retry");
    expect(fence.waits).toEqual([]);
  });

  it("retries a network failure a bounded number of times, then throws it", async () => {
    const fence = scriptedFence([]);
    await expect(fence.run.propose("noop", {})).rejects.toThrow("no more answers");
    expect(fence.requests).toHaveLength(4);
  });
});

describe("intentKey", () => {
  it("is stable, readable, and distinct for distinct intents", () => {
    expect(intentKey("create", "T-1")).toBe("intent:create:T-1");
    expect(intentKey("create", "T-1")).toBe(intentKey("create", "T-1"));
    expect(intentKey("create", "a:b")).not.toBe(intentKey("create", "a", "b"));
    expect(intentKey("note", "é ü")).toMatch(/^[A-Za-z0-9._:~+/=-]{8,128}$/);
  });

  it("refuses an intent too long to be a key", () => {
    expect(() => intentKey("create", "x".repeat(200))).toThrow(RangeError);
  });
});
