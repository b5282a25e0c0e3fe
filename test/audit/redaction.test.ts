import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONTRACTS } from "../../demo/contracts/index.ts";
import policy from "../../demo/contracts/policy.json";
import { FENCE } from "../../demo/fence.ts";
import worker from "../../demo/worker.ts";
import { gate } from "../../src/core/gate.ts";
import { loadFence } from "../../src/core/policy.ts";
import { keptText } from "../../src/http/evidence.ts";
import { MAX_JSON_DEPTH } from "../../src/http/limits.ts";
import { urgentTicket } from "../approvals/helpers.ts";
import { signedIn } from "../console/browser.ts";
import {
  archiveNow,
  DEV_KEY,
  demoUpstreams,
  dev,
  json,
  newRun,
  proposeThrough,
  runLedger,
  verifyAudit,
} from "../helpers.ts";
import { firstJson, mcpClient } from "../mcp/helpers.ts";
import { digestOf, newEmail } from "./sensitive.ts";

function ticket(email: string, key: string, extra: Record<string, unknown> = {}) {
  const ticket_id = `T-${crypto.randomUUID().slice(0, 8)}`;
  return {
    tool: "create_ticket",
    args: { ticket_id, title: "Login fails", reporter_email: email, ...extra },
    idempotency_key: key,
  };
}

/** Every byte the run's object holds about its calls: audit rows and approvals (if it has any). */
async function storedRows(run: string): Promise<string> {
  return runInDurableObject(runLedger(run), (_o, state) => {
    const sql = state.storage.sql;
    const audit = sql.exec("SELECT * FROM audit").toArray();
    const approvals = sql.exec("SELECT * FROM approval").toArray();
    return JSON.stringify({ audit, approvals });
  });
}

/** The audit as JSON and as the NDJSON export, the escalations and approvals views. */
async function published(run: string): Promise<string> {
  const pages = await Promise.all([
    dev.get(`/v1/runs/${run}/audit`),
    dev.get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" }),
    dev.get(`/v1/runs/${run}/escalations?status=all`),
    dev.get(`/v1/runs/${run}/approvals`),
  ]);
  for (const page of pages) expect(page.status).toBe(200);
  return (await Promise.all(pages.map((p) => p.text()))).join("\n");
}

async function expectNowhere(run: string, email: string): Promise<string> {
  const seen = `${await published(run)}\n${await storedRows(run)}`;
  expect(seen).not.toContain(email);
  expect((await verifyAudit(run)).ok).toBe(true);
  return seen;
}

describe("sensitive arguments in the audit", () => {
  it("keeps a keyed digest of an applied and a replayed call, never the value", async () => {
    const run = newRun();
    const email = newEmail();
    const call = ticket(email, "k-redact-native");
    expect((await dev.propose(run, call)).status).toBe(200);
    const replay = await dev.propose(run, call);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    const seen = await expectNowhere(run, email);
    expect(seen).toContain(digestOf(email));
  });

  it("gives one value one digest, in every run", async () => {
    const email = newEmail();
    const [a, b] = [newRun(), newRun()];
    await dev.propose(a, ticket(email, "k-redact-a"));
    await dev.propose(b, ticket(email, "k-redact-b"));
    expect(await published(a)).toContain(digestOf(email));
    expect(await published(b)).toContain(digestOf(email));
    expect(digestOf(email)).not.toBe(digestOf(newEmail()));
  });

  it("redacts the OpenAI form, whose arguments are a JSON string", async () => {
    const run = newRun();
    const email = newEmail();
    const { args } = ticket(email, "unused");
    const body = {
      type: "function",
      id: "call_1",
      function: { name: "create_ticket", arguments: JSON.stringify(args) },
    };
    const res = await dev.propose(run, body, { headers: { "Idempotency-Key": "k-redact-oa" } });
    expect(res.status).toBe(200);
    expect(await expectNowhere(run, email)).toContain(digestOf(email));
  });

  it("redacts a call the contract refuses, and one that waits for a person", async () => {
    const run = newRun();
    const email = newEmail();
    const broken = ticket(email, "k-redact-bad", { colour: "red" });
    expect((await dev.propose(run, broken)).status).toBe(422);
    const urgent = urgentTicket("k-redact-urgent");
    const asking = { ...urgent, args: { ...urgent.args, reporter_email: email } };
    const pending = await dev.propose(run, asking);
    expect(pending.status).toBe(202);
    expect(await pending.text()).not.toContain(email);
    const seen = await expectNowhere(run, email);
    const approvals = await json<{ approvals: { args: Record<string, unknown> }[] }>(
      await dev.get(`/v1/runs/${run}/approvals`),
    );
    expect(approvals.approvals[0]?.args.reporter_email).toBe(digestOf(email));
    expect(seen.split(digestOf(email)).length).toBeGreaterThan(2);
  });

  it("keeps only the digest of a whole body whose sensitive value is not a string", async () => {
    const run = newRun();
    const odd = ticket("unused", "k-redact-number", { reporter_email: 987_654_321 });
    expect((await dev.propose(run, odd)).status).toBe(422);
    const audit = await json<{ entries: { payload: string }[] }>(
      await dev.get(`/v1/runs/${run}/audit`),
    );
    expect(audit.entries[0]?.payload).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await expectNowhere(run, "987654321")).not.toContain("987654321");
  });

  it("redacts a model's text with the call in fenced JSON", async () => {
    const run = newRun();
    const email = newEmail();
    const text = `\`\`\`json\n${JSON.stringify(ticket(email, "k-redact-text"))}\n\`\`\``;
    const res = await dev.propose(run, text, { contentType: "text/plain" });
    expect(res.status).toBe(200);
    expect(await expectNowhere(run, email)).toContain(digestOf(email));
  });

  it("redacts a tools/call over MCP", async () => {
    const run = newRun();
    const email = newEmail();
    const client = await mcpClient(run);
    const { args } = ticket(email, "unused");
    const result = await client.callTool({
      name: "create_ticket",
      arguments: args,
      _meta: { "io.toolfence/idempotency-key": "k-redact-mcp" },
    });
    expect(firstJson(result).ticket).toBeDefined();
    await client.close();
    expect(await expectNowhere(run, email)).toContain(digestOf(email));
  });

  it("keeps only the digest in the archived segments", async () => {
    const run = newRun();
    const email = newEmail();
    expect((await dev.propose(run, ticket(email, "k-redact-archive"))).status).toBe(200);
    const written = await archiveNow(
      run,
      { segmentEntries: 1, retentionMs: 0 },
      Date.now() + 1_000,
    );
    expect(written).toBeGreaterThan(0);
    const listed = await env.AUDIT_ARCHIVE.list({ prefix: `audit/default/${run}/` });
    expect(listed.objects.length).toBe(written);
    const bytes = await Promise.all(
      listed.objects.map(async (o) => {
        const object = await env.AUDIT_ARCHIVE.get(o.key);
        return `${await object?.text()}${JSON.stringify(object?.customMetadata)}`;
      }),
    );
    expect(bytes.join("\n")).not.toContain(email);
    expect(bytes.join("\n")).toContain(digestOf(email));
  });

  it("still sends the real value to the tool", async () => {
    const email = newEmail();
    const sent: string[] = [];
    const bindings = {
      ...env,
      DEMO: {
        fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
          const request = new Request(input, init);
          sent.push(await request.clone().text());
          return demoUpstreams().fetch(request);
        },
      },
    } as unknown as Env;
    const run = newRun();
    const res = await proposeThrough(worker, bindings, run, ticket(email, "k-redact-up"));
    expect(res.status).toBe(200);
    expect(sent.join("\n")).toContain(email);
    await expectNowhere(run, email);
  });
});

describe("a body the fence cannot read as a call", () => {
  const digest = (text: string) => createHmac("sha256", "k").update(text).digest("hex");
  const text = '{"tool":"create_ticket","args":{"reporter_email":"a@example.com"';

  async function kept(unparsed: "keep" | "digest"): Promise<string> {
    const loaded = loadFence({ ...policy, audit_unparsed: unparsed }, CONTRACTS);
    if (!loaded.ok) throw new Error(loaded.error.join("\n"));
    const raw = { contentType: "application/json", text, headerKey: null, callerTools: null };
    const gated = await gate(loaded.value, raw, { maxDepth: MAX_JSON_DEPTH }, digest);
    expect(gated.ok).toBe(false);
    return keptText(loaded.value, text, gated, digest);
  }

  it("is kept as its keyed digest only by default", async () => {
    expect(FENCE.policy.audit_unparsed).toBe("digest");
    expect(await kept("digest")).toBe(`hmac-sha256:${digest(text)}`);
  });

  it('is kept as received only under audit_unparsed: "keep"', async () => {
    expect(await kept("keep")).toBe(text);
  });

  it("never reaches the audit, the export or the console by default", async () => {
    const run = newRun();
    const email = newEmail();
    const broken = `{"tool":"create_ticket","args":{"reporter_email":${JSON.stringify(email)}`;
    expect((await dev.propose(run, broken)).status).toBe(400);
    const browser = await signedIn(DEV_KEY);
    const page = await (await browser.get(`/console/runs/${run}`)).text();
    expect(page).toContain("malformed_payload");
    expect(page).not.toContain(email);
    await expectNowhere(run, email);
  });
});
