import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/core/canonical.ts";
import type { AuditEntry } from "../../src/ledger/protocol.ts";
import { callerWith, dev, json, newRun, propose, runLedger, verifyAudit } from "../helpers.ts";
import {
  bindingsWith,
  CLIENT_ID,
  CLIENT_SECRET,
  fenceWith,
  PersonBrowser,
  StandInProvider,
  serveOutbound,
  signInThrough,
} from "../people/helpers.ts";

afterEach(() => vi.restoreAllMocks());

async function entriesOf(caller: typeof dev, run: string): Promise<AuditEntry[]> {
  return (await json<{ entries: AuditEntry[] }>(await caller.get(`/v1/runs/${run}/audit`))).entries;
}

describe("every audit entry names its principal", () => {
  it("a key's calls and its halt name the key by digest and label", async () => {
    const operator = await callerWith({ role: "operator" });
    const run = newRun("principal");
    expect((await operator.propose(run, { tool: "noop", args: {} })).status).toBe(200);
    expect((await operator.post(`/v1/runs/${run}/halt?reason=done`)).status).toBe(200);
    const entries = await entriesOf(operator, run);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    const key = { kind: "key", key_id: await sha256Hex(operator.key ?? ""), label: "test" };
    for (const entry of entries) expect(entry.principal).toEqual(key);
  });

  it("the development key is named as such", async () => {
    const run = newRun("principal");
    await propose(run, { tool: "noop", args: {} });
    const [entry] = await entriesOf(dev, run);
    expect(entry?.principal).toEqual({ kind: "key", key_id: null, label: "development" });
  });

  it("the principal is inside the hash: editing it breaks the chain at that entry", async () => {
    const run = newRun("principal");
    await propose(run, { tool: "noop", args: {} });
    await propose(run, { tool: "noop", args: {} });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 2 });
    await runInDurableObject(runLedger(run), (_l, state) => {
      const forged = JSON.stringify({ kind: "key", key_id: null, label: "someone else" });
      state.storage.sql.exec("UPDATE audit SET principal = ? WHERE seq = 2", forged);
    });
    expect(await verifyAudit(run)).toMatchObject({ ok: false, first_bad_seq: 2 });
  });

  it("a person who halts a run from the console is named by the entry, and shown on its timeline", async () => {
    const idp = await new StandInProvider().start();
    serveOutbound(idp);
    idp.person = { sub: "s-ada", email: "ada@example.com", email_verified: true, name: "Ada" };
    const bindings = bindingsWith({
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
    });
    const browser = new PersonBrowser(fenceWith({ allow: ["ada@example.com"] }), bindings);
    expect((await signInThrough(browser, idp)).status).toBe(200);
    const run = newRun("principal");
    await propose(run, { tool: "noop", args: {} });
    const halted = await browser.fetch(`/console/runs/${run}/halt`, {
      method: "POST",
      headers: { Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ reason: "stop it", confirm: "yes" }),
    });
    expect(halted.status).toBeLessThan(400);
    const last = (await entriesOf(dev, run)).at(-1);
    expect(last?.decision).toBe("halted");
    expect(last?.actor).toBe("ada@example.com");
    expect(last?.principal).toEqual({
      kind: "person",
      iss: idp.issuer,
      sub: "s-ada",
      email: "ada@example.com",
      email_verified: true,
      name: "Ada",
    });
    const page = await (await browser.fetch(`/console/runs/${run}`)).text();
    expect(page).toContain("stop it");
    expect(page).toContain(`s-ada at ${idp.issuer}`);
  });
});
