import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { canonicalize, sha256Hex } from "../../src/core/canonical.ts";
import { validateArgs } from "../../src/core/validate.ts";
import { urgentTicket } from "../approvals/helpers.ts";
import { signedIn } from "../console/browser.ts";
import { archiveNow, DEV_KEY, dev, newRun } from "../helpers.ts";
import { mcpClient } from "../mcp/helpers.ts";

const TOOL = "create_ticket";

/** The validated form of a create_ticket's arguments: what an unkeyed digest would cover. */
function validated(args: Record<string, unknown>): unknown {
  const contract = FENCE.tools.get(TOOL);
  if (contract === undefined) throw new Error("no create_ticket contract");
  const checked = validateArgs(contract, args);
  if (!checked.ok) throw new Error(checked.error.detail);
  return checked.value;
}

/**
 * Every unkeyed SHA-256 someone who guessed the value could compute and look for: of the
 * value, of the call (as sent and as validated), and of the call scoped by its run.
 */
async function guesses(run: string, email: string, calls: Record<string, unknown>[]) {
  const texts = [email, JSON.stringify(email)];
  for (const args of calls) {
    for (const form of [args, validated(args)]) {
      texts.push(canonicalize({ tool: TOOL, args: form }));
      texts.push(canonicalize({ run, tool: TOOL, args: form }));
    }
  }
  return Promise.all(texts.map(sha256Hex));
}

/** Everything the API, the console and the archive give back about the run. */
async function everythingReturned(run: string, answers: string[]): Promise<string> {
  const routes = [
    dev.get(`/v1/runs/${run}/audit`),
    dev.get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" }),
    dev.get(`/v1/runs/${run}/approvals`),
    dev.get("/v1/approvals?status=all&limit=1000"),
    dev.get(`/v1/runs/${run}/escalations?status=all`),
    dev.get(`/v1/runs/${run}`),
  ];
  const pages = await Promise.all(routes);
  for (const page of pages) expect(page.status).toBe(200);
  const browser = await signedIn(DEV_KEY);
  const consolePage = await browser.get(`/console/runs/${run}`);
  expect(consolePage.status).toBe(200);
  const written = await archiveNow(run, { segmentEntries: 1, retentionMs: 0 }, Date.now() + 1_000);
  expect(written).toBeGreaterThan(0);
  const listed = await env.AUDIT_ARCHIVE.list({ prefix: `audit/default/${run}/` });
  const archived = await Promise.all(
    listed.objects.map(async (o) => {
      const object = await env.AUDIT_ARCHIVE.get(o.key);
      return `${await object?.text()}${JSON.stringify(object?.customMetadata)}`;
    }),
  );
  const texts = await Promise.all([...pages.map((p) => p.text()), consolePage.text()]);
  return [...answers, ...texts, ...archived].join("\n");
}

describe("a guessed sensitive value", () => {
  it("is confirmed by no digest the API, the console, the export or the archive returns", async () => {
    const run = newRun("guess");
    const email = `guess-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const answers: string[] = [];
    const applied = {
      tool: TOOL,
      args: { ticket_id: `T-${crypto.randomUUID()}`, title: "Login fails", reporter_email: email },
      idempotency_key: "k-guess-applied",
    };
    for (const _ of [1, 2]) answers.push(await (await dev.propose(run, applied)).text());
    const urgent = urgentTicket("k-guess-urgent");
    const asking = { ...urgent, args: { ...urgent.args, reporter_email: email } };
    const pending = await dev.propose(run, asking);
    expect(pending.status).toBe(202);
    answers.push(await pending.text());
    const client = await mcpClient(run);
    const overMcp = { ticket_id: `T-${crypto.randomUUID()}`, reporter_email: email };
    const result = await client.callTool({ name: TOOL, arguments: overMcp });
    expect(result.isError).toBeFalsy();
    answers.push(JSON.stringify(result));
    await client.close();

    const seen = await everythingReturned(run, answers);
    // The digests are there to be tried: every call's fingerprint, and a derived key.
    expect(seen.match(/"fingerprint":"[0-9a-f]{64}"/g)?.length).toBeGreaterThanOrEqual(4);
    expect(seen).toMatch(/"idempotency_key":"mcp:[0-9a-f]{64}"/);
    expect(seen).not.toContain(email);
    for (const hex of await guesses(run, email, [applied.args, asking.args, overMcp])) {
      expect(seen).not.toContain(hex);
    }
  });
});
