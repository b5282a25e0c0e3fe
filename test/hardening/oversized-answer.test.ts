import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import policy from "../../contracts/policy.json" with { type: "json" };
import { buildApp } from "../../src/app.ts";
import type { ToolContract } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { json, newRun, proposeThrough } from "../helpers.ts";
import { chargeCard, UpstreamDouble } from "../upstream-double.ts";

const MiB = 1_048_576;

/** `{"<field>":"xxx…"}` of about `bytes` bytes, streamed in 64 KiB chunks with no length. */
function streamedAnswer(field: string, bytes: number): Response {
  const head = new TextEncoder().encode(`{"${field}":"`);
  const tail = new TextEncoder().encode(`"}`);
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    pull(controller) {
      if (sent >= bytes) {
        controller.enqueue(tail);
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
  return new Response(body, { headers: { "Content-Type": "application/json" } });
}

/** A cacheable read whose output takes any text. */
const fetchPage: ToolContract = {
  name: "fetch_page",
  version: "v1",
  description: "Fetch a page of text.",
  effect: "read",
  paid: false,
  input: v.strictObject({}),
  output: v.strictObject({ text: v.string() }),
  timeoutMs: 5_000,
  cacheTtlSeconds: 60,
  sharedCache: false,
  upstream: { kind: "service", binding: "UPSTREAM", method: "GET", path: "/page" },
};

function appWith(extra: Record<string, unknown>, card: Partial<ToolContract> = {}) {
  const loaded = loadFence(
    { ...policy, allowed_tools: ["charge_card", "fetch_page"], tools: {}, ...extra },
    [{ ...chargeCard, timeoutMs: 5_000, ...card }, fetchPage],
  );
  if (!loaded.ok) throw new Error(loaded.error.join("; "));
  const app = buildApp(loaded.value);
  return (double: UpstreamDouble, run: string, body: unknown) =>
    proposeThrough(app, { ...env, UPSTREAM: double } as Env, run, body);
}

const charge = {
  tool: "charge_card",
  args: { account: "acct-7", amount_cents: 100 },
  idempotency_key: "k-oversized-01",
};

describe("an upstream answer past the byte bound", () => {
  it("settles a mutation once, and the retry replays it without calling the tool", async () => {
    const propose = appWith({});
    const double = new UpstreamDouble(() => Promise.resolve(streamedAnswer("charge_id", 30 * MiB)));
    const run = newRun("oversized");
    const first = await propose(double, run, charge);
    expect(first.status).toBe(502);
    const problem = await json(first);
    expect(problem).toMatchObject({ decision: "escalate", reason: "upstream_answer_too_large" });
    expect(problem.detail).toMatch(/more than 1048576 bytes \(\d+ seen\)/);
    const retry = await propose(double, run, charge);
    expect(retry.status).toBe(502);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(retry)).toMatchObject({ reason: "upstream_answer_too_large" });
    expect(double.received).toHaveLength(1);
  });

  it("refuses a declared length past the bound before reading it", async () => {
    const propose = appWith({ upstream_answer_max_bytes: 4_096 });
    const big = JSON.stringify({ charge_id: "x".repeat(8_000) });
    const double = new UpstreamDouble(() =>
      Promise.resolve(new Response(big, { headers: { "Content-Length": String(big.length) } })),
    );
    const res = await propose(double, newRun("declared"), charge);
    const problem = await json(res);
    expect(problem).toMatchObject({ reason: "upstream_answer_too_large" });
    expect(problem.detail).toContain(`more than 4096 bytes (${big.length} seen)`);
  });

  it("reads no more than a contract's own lower bound", async () => {
    const propose = appWith({ upstream_answer_max_bytes: 1 * MiB }, { maxAnswerBytes: 2_048 });
    const answer = JSON.stringify({ charge_id: "x".repeat(4_000) });
    const double = new UpstreamDouble(() => Promise.resolve(new Response(answer)));
    const problem = await json(await propose(double, newRun("contract-bound"), charge));
    expect(problem).toMatchObject({ reason: "upstream_answer_too_large" });
    expect(problem.detail).toContain("more than 2048 bytes");
  });

  it("keeps the policy's bound when a contract asks for more", async () => {
    const propose = appWith({ upstream_answer_max_bytes: 4_096 }, { maxAnswerBytes: 8 * MiB });
    const answer = JSON.stringify({ charge_id: "x".repeat(8_000) });
    const double = new UpstreamDouble(() => Promise.resolve(new Response(answer)));
    const problem = await json(await propose(double, newRun("policy-bound"), charge));
    expect(problem.detail).toContain("more than 4096 bytes");
  });

  it("never answers or caches an oversized read", async () => {
    const propose = appWith({});
    const double = new UpstreamDouble(() => Promise.resolve(streamedAnswer("text", 3 * MiB)));
    const run = newRun("oversized-read");
    const read = { tool: "fetch_page", args: {} };
    const first = await propose(double, run, read);
    expect(first.status).toBe(502);
    expect(await json(first)).toMatchObject({ reason: "upstream_answer_too_large" });
    const second = await propose(double, run, read);
    expect(await json(second)).toMatchObject({ reason: "upstream_answer_too_large" });
    expect(double.received).toHaveLength(2);
  });
});

describe("an answer within the bound that the ledger cannot keep for replay", () => {
  it("settles the mutation as too large, once, and the retry replays it", async () => {
    const propose = appWith({ upstream_answer_max_bytes: 4 * MiB });
    const double = new UpstreamDouble(() =>
      Promise.resolve(streamedAnswer("charge_id", 2.5 * MiB)),
    );
    const run = newRun("unkeepable");
    const first = await propose(double, run, charge);
    expect(first.status).toBe(502);
    expect(await json(first)).toMatchObject({
      decision: "escalate",
      reason: "upstream_answer_too_large",
    });
    const retry = await propose(double, run, charge);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await json(retry)).toMatchObject({ reason: "upstream_answer_too_large" });
    expect(double.received).toHaveLength(1);
  });

  it("answers a read within the bound in full", async () => {
    const propose = appWith({ upstream_answer_max_bytes: 4 * MiB });
    const double = new UpstreamDouble(() => Promise.resolve(streamedAnswer("text", 2 * MiB)));
    const res = await propose(double, newRun("big-read"), { tool: "fetch_page", args: {} });
    expect(res.status).toBe(200);
    const body = await json<{ result: { text: string } }>(res);
    expect(body.result.text.length).toBe(2 * MiB);
  });
});
