/**
 * The audit entry of a call made as the principal names the upstream identity it used: the
 * upstream's subject when the token says it, the connection's id otherwise, inside the hash.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifyChain } from "../../src/core/audit-chain.ts";
import { dev } from "../helpers.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { NOTES, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

type Entry = Record<string, unknown> & { call_id?: string; principal?: Record<string, unknown> };

/** The run's audit entries exactly as the API publishes them (what the hash covers). */
async function published(run: string): Promise<Entry[]> {
  const res = await dev.get(`/v1/runs/${run}/audit`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: Entry[] }).entries;
}

// The first connection of a file loads the MCP SDK, which takes seconds on a shared machine.
describe("the upstream identity in a call's audit entries", { timeout: 30_000 }, () => {
  it("is the connection's id alone when the access token is opaque", async () => {
    const standIn = new StandIn({ opaque: true }).install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const again = await callNotes(who, first.run);
    expect(again.res.status, JSON.stringify(again.body)).toBe(200);
    expect(standIn.calls.map((c) => c.sub)).toEqual(["ada"]);
    const entries = (await published(first.run)).filter((e) => e.call_id === again.body.call_id);
    expect(entries.length).toBe(2);
    for (const entry of entries) {
      const identity = entry.principal?.upstream_identity as Record<string, unknown>;
      expect(Object.keys(identity).sort()).toEqual(["connection_id", "resource"]);
      expect(identity).toMatchObject({ resource: NOTES, connection_id: /^cn_[0-9a-f]{24}$/ });
    }
  });

  it("is covered by the entry's hash: changing it breaks the chain", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const again = await callNotes(who, first.run);
    expect(again.res.status, JSON.stringify(again.body)).toBe(200);
    const entries = await published(first.run);
    const options = { tenant: "default", run: first.run };
    expect(verifyChain(entries, options)).toMatchObject({ ok: true });
    const at = entries.findIndex((e) => e.call_id === again.body.call_id);
    const entry = entries[at] as Entry;
    const identity = entry.principal?.upstream_identity as Record<string, unknown>;
    expect(identity.subject).toBe("ada");
    for (const changed of [
      { ...identity, subject: "grace" },
      { ...identity, connection_id: "cn_000000000000000000000000" },
    ]) {
      const forged = entries.map((e, i) =>
        i === at ? { ...e, principal: { ...e.principal, upstream_identity: changed } } : e,
      );
      expect(verifyChain(forged, options)).toMatchObject({ ok: false, first_bad_seq: entry.seq });
    }
  });
});
