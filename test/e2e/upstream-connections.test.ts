/**
 * Upstream connections end to end, against the e2e project's `wrangler dev` and a real
 * OAuth-protected MCP server on loopback (test/e2e/notes-upstream.ts: the official server SDK
 * with a bearer check, oidc-provider as its authorization server): the import, a refusal with a
 * connect link, the person's consent in Chromium, the call applied with a token the upstream
 * issued for that person, a second person's own connection, a refresh without the person,
 * deletion by the person, by an operator and by revoking the key, and no token anywhere.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browser, connectInBrowser, issueKey, revokeKey } from "./connections.ts";
import { ACCESS_TTL_S, notesSeen } from "./notes-upstream.ts";
import type { Export } from "./otlp-receiver.ts";

const url = inject("fenceUrl");
const notesUrl = inject("notesUrl");
const issuer = inject("notesIssuer");
const state = inject("devState");
const DEV = "tf_dev_local_key";
const ROOT = resolve(import.meta.dirname, "../..");

/** Every answer the fence gave in this file, to look for tokens in. */
const answers: string[] = [];
const runs = new Set<string>();

async function call(
  key: string,
  run: string,
  tool = "notes_whoami",
  args: unknown = {},
  idem?: string,
) {
  runs.add(run);
  const res = await fetch(`${url}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ tool, args, ...(idem === undefined ? {} : { idempotency_key: idem }) }),
  });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

function connectUrlOf(body: Record<string, unknown>): string {
  expect(body).toMatchObject({ reason: "upstream_authorization_required", decision: "escalate" });
  return String(body.connect_url);
}

const subjectOf = (body: Record<string, unknown>) =>
  (body.result as { structuredContent?: { subject?: string; token_id?: string } })
    .structuredContent;

let chrome: Awaited<ReturnType<typeof browser>>;
let context: BrowserContext;
let page: Page;
let alice: { key: string; id: string };
let bob: { key: string; id: string };
const run = `e2e-connect-${crypto.randomUUID()}`;

beforeAll(async () => {
  chrome = await browser();
  context = chrome.context;
  page = context.pages()[0] ?? (await context.newPage());
  alice = await issueKey(state, "operator", "alice's key");
  bob = await issueKey(state, "agent", "bob's agent");
});

afterAll(async () => {
  await chrome?.close();
});

/** Sign the browser in to the console with `key`, then open `path`. */
async function consoleAs(key: string, path: string): Promise<void> {
  await page.goto(`${url}/console`);
  if ((await page.locator('input[name="key"]').count()) > 0) {
    await page.fill('input[name="key"]', key);
    await page.click("button.primary");
  }
  await page.goto(`${url}${path}`);
}

describe("an OAuth-protected MCP server behind the fence", () => {
  it("is imported with --auth oauth after a person allows the listing in a browser", async () => {
    const out = mkdtempSync(join(tmpdir(), "toolfence-import-"));
    try {
      const args = ["scripts/contracts.ts", "import", "--mcp", notesUrl, "--auth", "oauth"];
      args.push("--prefix", "notes_", "--url-var", "MCP_NOTES_URL", "--out", out);
      const child = execFile(join(ROOT, "node_modules/.bin/node"), args, { cwd: ROOT });
      let stderr = "";
      const address = new Promise<string>((resolve) => {
        child.stderr?.on("data", (d: Buffer) => {
          stderr += d.toString();
          const m = /\n {2}(http\S+)/.exec(stderr);
          if (m?.[1] !== undefined) resolve(m[1]);
        });
      });
      const exited = new Promise<number | null>((r) => child.on("exit", r));
      await page.goto(await address);
      await page.fill('input[name="login"]', "importer");
      await page.fill('input[name="password"]', "any password");
      await page.click("button[type=submit]");
      while (new URL(page.url()).origin === issuer) {
        await page.click("button[type=submit]");
        await page.waitForLoadState();
      }
      expect(await exited, stderr).toBe(0);
      for (const tool of ["notes_whoami", "notes_add_note"]) {
        const written = readFileSync(join(out, `${tool}.ts`), "utf8");
        expect(written).toContain('auth: { kind: "oauth", as: "principal" }');
        const pin = JSON.parse(readFileSync(join(out, `${tool}.pin.json`), "utf8"));
        const committed = JSON.parse(
          readFileSync(join(ROOT, "demo/contracts", `${tool}.pin.json`), "utf8"),
        );
        // What the demo committed is what the server lists: only the source's port differs.
        expect({ ...pin, source: "" }).toEqual({ ...committed, source: "" });
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("refuses alice's call before any charge with a connect link; once she consents, it is applied with her token", async () => {
    const refused = await call(alice.key, run);
    expect(refused.status).toBe(403);
    const link = connectUrlOf(refused.body);
    expect(link.startsWith(`${url}/console/connections/connect?link=`)).toBe(true);
    expect(refused.body.budget).toMatchObject({ mutations: { used: 0 }, paid_calls: { used: 0 } });
    await connectInBrowser(page, link, alice.key, "alice", issuer);
    const applied = await call(alice.key, run);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(subjectOf(applied.body)?.subject).toBe("alice");
    // The upstream saw a token its own authorization server issued, for alice.
    const seen = await notesSeen(notesUrl);
    expect(seen.calls.at(-1)).toMatchObject({ tool: "whoami", sub: "alice" });
    // That server publishes no RFC 8414 document: the fence found it by OpenID's.
    expect(seen.metadata).toContain("/.well-known/oauth-authorization-server 404");
    expect(seen.metadata).toContain("/.well-known/openid-configuration 200");
    const audit = await fetch(`${url}/v1/runs/${run}/audit`, {
      headers: { Authorization: `Bearer ${DEV}` },
    });
    const { entries } = (await audit.json()) as {
      entries: { call_id: string; principal: unknown }[];
    };
    const mine = entries.filter((e) => e.call_id === applied.body.call_id);
    expect(mine).toHaveLength(2);
    for (const e of mine) {
      expect(e.principal).toMatchObject({
        kind: "key",
        key_id: alice.id,
        upstream_identity: { resource: notesUrl, subject: "alice" },
      });
    }
  });

  it("gives bob his own refusal and his own connection; a mutation goes as him", async () => {
    const refused = await call(
      bob.key,
      run,
      "notes_add_note",
      { text: "from bob" },
      "k-bob-note-1",
    );
    expect(refused.status).toBe(403);
    await connectInBrowser(page, connectUrlOf(refused.body), bob.key, "bob", issuer);
    const applied = await call(
      bob.key,
      run,
      "notes_add_note",
      { text: "from bob" },
      "k-bob-note-1",
    );
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.result).toMatchObject({ structuredContent: { author: "bob" } });
    const replay = await call(bob.key, run, "notes_add_note", { text: "from bob" }, "k-bob-note-1");
    expect(replay.body.decision).toBe("replayed");
    expect((await notesSeen(notesUrl)).calls.filter((c) => c.tool === "add_note")).toHaveLength(1);
    expect(subjectOf((await call(alice.key, run)).body)?.subject).toBe("alice");
  });

  it("refreshes an expired access token without the person", async () => {
    const before = await call(alice.key, run);
    const refreshes = (await notesSeen(notesUrl)).refreshes;
    await new Promise((r) => setTimeout(r, (ACCESS_TTL_S + 1) * 1000));
    const after = await call(alice.key, run);
    expect(after.status).toBe(200);
    expect(subjectOf(after.body)?.subject).toBe("alice");
    expect(subjectOf(after.body)?.token_id).not.toBe(subjectOf(before.body)?.token_id);
    expect((await notesSeen(notesUrl)).refreshes).toBeGreaterThan(refreshes);
  });

  it("is deleted by its person on their connections page, revoked at the upstream, and asked for again", async () => {
    const revoked = (await notesSeen(notesUrl)).revoked.length;
    await consoleAs(alice.key, "/console/connections");
    expect(await page.textContent("main")).toContain("127.0.0.1");
    await page.click('button:has-text("Delete")');
    await page.waitForURL((u) => u.search === "?done=1");
    expect((await notesSeen(notesUrl)).revoked.length).toBe(revoked + 1);
    const next = await call(alice.key, run);
    expect(next.status).toBe(403);
    connectUrlOf(next.body);
    await page.context().clearCookies();
  });

  it("is revoked by an operator on the tenant's page, and asked for again", async () => {
    await consoleAs(DEV, "/console/connections/tenant");
    const row = page.locator("tr", { hasText: "bob's agent" });
    await row.locator('button:has-text("Revoke")').click();
    await page.waitForURL((u) => u.search === "?done=1");
    const next = await call(bob.key, run);
    expect(next.status).toBe(403);
    await page.context().clearCookies();
    await connectInBrowser(page, connectUrlOf(next.body), bob.key, "bob", issuer);
    expect((await call(bob.key, run)).status).toBe(200);
  });

  it("goes with its key: revoked with npm run keys, deleted and revoked at the upstream by the scheduled run", async () => {
    const revoked = (await notesSeen(notesUrl)).revoked.length;
    revokeKey(state, bob.id);
    expect((await fetch(`${url}/__scheduled`)).status).toBe(200);
    const until = Date.now() + 15_000;
    while ((await notesSeen(notesUrl)).revoked.length === revoked && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await notesSeen(notesUrl)).revoked.length).toBe(revoked + 1);
    await consoleAs(DEV, "/console/connections/tenant");
    expect(await page.textContent("main")).not.toContain("bob's agent");
    expect((await call(bob.key, run)).status).toBe(401);
  });

  it("never puts a token in an answer, the audit, the worker's logs or an exported span", async () => {
    const { issued } = await notesSeen(notesUrl);
    expect(issued.length).toBeGreaterThan(4);
    const audits = await Promise.all(
      [...runs].map(async (r) => {
        const res = await fetch(`${url}/v1/runs/${r}/audit`, {
          headers: { Authorization: `Bearer ${DEV}`, Accept: "application/x-ndjson" },
        });
        return res.text();
      }),
    );
    // Exports run after the answers; give the last batch its schedule delay.
    await new Promise((r) => setTimeout(r, 2_000));
    const exports = (await (await fetch(`${inject("otlpUrl")}/received`)).json()) as Export[];
    const spans = Buffer.concat(exports.map((e) => Buffer.from(e.body, "base64"))).toString(
      "latin1",
    );
    const logs = readFileSync(inject("devLog"), "utf8");
    expect(logs).toContain("toolfence.decision");
    const everything = [...answers, ...audits, spans, logs].join("\n");
    for (const token of issued) expect(everything.includes(token), token.slice(0, 12)).toBe(false);
  });
});
