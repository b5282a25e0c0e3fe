import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { buildApp } from "../src/app.ts";
import type { ToolContract } from "../src/core/contract.ts";
import { loadFence } from "../src/core/policy.ts";
import { EscalationSchema, type UpstreamAnswer } from "../src/core/shapes/audit.ts";
import { UPSTREAM_EXCERPT_MAX_BYTES } from "../src/core/upstream-excerpt.ts";
// Loaded here, not on the first MCP call: on a busy machine its loading would eat the call's timeout.
import "../src/execute/mcp.ts";
import { signedIn } from "./console/browser.ts";
import {
  auditPage,
  DEV_KEY,
  devRequest,
  json,
  newRun,
  proposeThrough,
  runLedger,
  verifyAudit,
} from "./helpers.ts";
import { behind, initialized, standInContract } from "./mcp-upstream/stand-in.ts";
import { reply, UpstreamDouble } from "./upstream-double.ts";

const TOKEN = `ghp_${"aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC".repeat(2).slice(0, 36)}`;
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE".replace("EXAMPLE", "QWERTYZ");
const CARD_TOKEN = "tok-4f1c-private-card-token";

/** A paid mutation whose upstream is the double; its `card_token` is sensitive. */
const payCard: ToolContract = {
  name: "pay_card",
  version: "v1",
  description: "Pay with a stored card.",
  effect: "mutate",
  paid: true,
  input: v.strictObject({
    account: v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/)),
    card_token: v.string(),
  }),
  output: v.strictObject({ payment_id: v.string() }),
  timeoutMs: 500,
  cacheTtlSeconds: 0,
  sharedCache: false,
  sensitive: ["card_token"],
  upstream: { kind: "service", binding: "UPSTREAM", method: "POST", path: "/pay/{account}" },
};

function appOf(contracts: ToolContract[]) {
  const names = contracts.map((c) => c.name);
  const source = { ...policy, allowed_tools: names, tools: {}, on_drift: "allow" };
  const loaded = loadFence(source, contracts);
  if (!loaded.ok) throw new Error(loaded.error.join("; "));
  return buildApp(loaded.value);
}

const payApp = appOf([payCard]);
const mcpApp = appOf([standInContract]);

const pay = (key: string) => ({
  tool: "pay_card",
  args: { account: "acct-9", card_token: CARD_TOKEN },
  idempotency_key: key,
});

async function payWith(run: string, answer: () => Promise<Response>, key = "k-pay-upstream") {
  const double = new UpstreamDouble(answer);
  return proposeThrough(payApp, { ...env, UPSTREAM: double } as Env, run, pay(key));
}

/** The outcome entry's `upstream` as the audit API publishes it. */
async function upstreamOf(run: string): Promise<UpstreamAnswer | undefined> {
  const page = await auditPage(run);
  return page.entries.find((e) => e.of !== null)?.upstream;
}

/** Every byte the run's object holds: audit rows and idempotency keys. */
async function storedRows(run: string): Promise<string> {
  return runInDurableObject(runLedger(run), (_o, state) => {
    const sql = state.storage.sql;
    const audit = sql.exec("SELECT * FROM audit").toArray();
    const keys = sql.exec("SELECT * FROM idempotency_key").toArray();
    return JSON.stringify({ audit, keys });
  });
}

/** The call's detail on the run's console page. */
async function consoleDetail(run: string): Promise<string> {
  const browser = await signedIn(DEV_KEY);
  const page = await (await browser.get(`/console/runs/${run}`)).text();
  const start = page.indexOf('<tbody id="e-1"');
  expect(start).toBeGreaterThan(0);
  return page.slice(start, page.indexOf("</tbody>", page.indexOf("</details>", start)));
}

describe("what a failed call keeps of its upstream's answer", { timeout: 30_000 }, () => {
  it("keeps an escalated call's status and answer, redacted, in the audit, the API and the console", async () => {
    const run = newRun("upstream-answer");
    const body = {
      error: "card refused <script>alert(1)</script>",
      card_token: "tok-other-value-named-sensitive",
      debug: `auth ${TOKEN} key ${AWS_KEY} for ${CARD_TOKEN}`,
    };
    const res = await payWith(run, reply(422, body));
    expect(res.status).toBe(502);
    expect(await json(res)).toMatchObject({ decision: "escalate", reason: "upstream_rejected" });

    const kept = await upstreamOf(run);
    expect(kept).toMatchObject({ status: 422, truncated: false });
    const excerpt = kept?.excerpt ?? "";
    expect(excerpt).toContain("card refused <script>alert(1)</script>");
    expect(excerpt).toContain("[redacted:secret:");
    expect(excerpt).toMatch(/"card_token":"hmac-sha256:[0-9a-f]{64}"/);
    expect(kept?.bytes).toBe(new TextEncoder().encode(JSON.stringify(body)).byteLength);

    const escalations = await payApp.fetch(devRequest(`/v1/runs/${run}/escalations`), env);
    const listed = v.parse(
      v.object({ escalations: v.array(EscalationSchema) }),
      await escalations.json(),
    );
    expect(listed.escalations[0]?.upstream).toEqual(kept);

    const detail = await consoleDetail(run);
    expect(detail).toContain("Upstream answered 422");
    expect(detail).toContain("card refused &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(detail).not.toContain("<script>alert(1)");

    for (const where of [JSON.stringify(await auditPage(run)), detail, await storedRows(run)]) {
      expect(where).not.toContain(TOKEN);
      expect(where).not.toContain(AWS_KEY);
      expect(where).not.toContain(CARD_TOKEN);
      expect(where).not.toContain("tok-other-value-named-sensitive");
    }
    expect((await verifyAudit(run)).ok).toBe(true);
  });

  it("keeps a 503's status for a retry, and no answer for a timeout", async () => {
    const run = newRun("upstream-answer");
    await payWith(run, reply(503, { error: "maintenance" }), "k-pay-503");
    expect(await upstreamOf(run)).toMatchObject({
      status: 503,
      excerpt: '{"error":"maintenance"}',
    });

    const silent = newRun("upstream-answer");
    const hang = () => new Promise<Response>((r) => setTimeout(() => r(Response.json({})), 2_000));
    const res = await payWith(silent, hang, "k-pay-hang");
    expect(res.status).toBe(504);
    expect(await upstreamOf(silent)).toEqual({
      status: null,
      excerpt: "",
      bytes: 0,
      truncated: false,
    });
    expect(await consoleDetail(silent)).toContain("No answer from the upstream");
  });

  it("cuts an answer past the bound on a character boundary and says its full size", async () => {
    const run = newRun("upstream-answer");
    // "€" is 3 bytes of UTF-8: the bound falls inside one.
    const text = `${"€".repeat(1_000)} and more`;
    const long = () => Promise.resolve(new Response(text, { status: 500 }));
    await payWith(run, long, "k-pay-long");
    const kept = await upstreamOf(run);
    const size = new TextEncoder().encode(kept?.excerpt ?? "").byteLength;
    expect(size).toBeLessThanOrEqual(UPSTREAM_EXCERPT_MAX_BYTES);
    expect(kept?.excerpt).toBe("€".repeat(Math.floor(UPSTREAM_EXCERPT_MAX_BYTES / 3)));
    expect(kept).toMatchObject({ status: 500, bytes: 3_009, truncated: true });
    expect(await consoleDetail(run)).toContain(`first ${size} of 3009 bytes`);
  });

  it("keeps an MCP tool's isError result, redacted, for its escalation", async () => {
    const run = newRun("upstream-answer");
    const result = { content: [{ type: "text", text: `denied for ${TOKEN}` }], isError: true };
    const res = await proposeThrough(mcpApp, behind(initialized(result)), run, {
      tool: standInContract.name,
      args: { service: "checkout-is-error" },
    });
    const answer = await json(res);
    expect(answer).toMatchObject({ decision: "escalate", reason: "upstream_rejected" });
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
    const kept = await upstreamOf(run);
    expect(kept).toMatchObject({ status: 200, is_error: true, truncated: false });
    expect(kept?.excerpt).toMatch(/^denied for \[redacted:secret:[a-z-]+\]$/);
    const detail = await consoleDetail(run);
    expect(detail).toContain("Upstream answered 200 with an error result (isError)");
    for (const where of [JSON.stringify(await auditPage(run)), detail, await storedRows(run)]) {
      expect(where).not.toContain(TOKEN);
    }
  });

  it("keeps an MCP server's JSON-RPC error code and message", async () => {
    const run = newRun("upstream-answer");
    const server = behind((m) =>
      m.method === "initialize"
        ? initialized({})(m)
        : Response.json({
            jsonrpc: "2.0",
            id: m.id,
            error: { code: -32602, message: "Unknown service" },
          }),
    );
    await proposeThrough(mcpApp, server, run, {
      tool: standInContract.name,
      args: { service: "checkout-rpc-error" },
    });
    const kept = await upstreamOf(run);
    expect(kept).toMatchObject({ status: 200, rpc_error_code: -32602 });
    expect(kept?.excerpt).toContain("Unknown service");
    expect(await consoleDetail(run)).toContain("with JSON-RPC error -32602");
  });
});
