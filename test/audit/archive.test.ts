import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { verifyChain } from "../../src/core/audit-chain.ts";
import { type PublicJwk, type SignedHead, verifyHead } from "../../src/core/audit-head.ts";
import { segmentKey } from "../../src/ledger/audit/audit-archive.ts";
import { append, type EntryDraft } from "../../src/ledger/audit/audit-log.ts";
import type { RunRow } from "../../src/ledger/views.ts";
import {
  archiveNow,
  editRun,
  get,
  json,
  newRun,
  post,
  propose,
  runLedger,
  verifyAudit,
} from "../helpers.ts";
import { firstDraft } from "./entries.ts";

interface Segment {
  first_seq: number;
  last_seq: number;
  head_hash: string;
  key: string;
  trimmed: number;
}
interface Entry {
  seq: number;
  hash: string;
  decision: string;
}

const segmentsOf = async (run: string) =>
  (await json<{ segments: Segment[] }>(await get(`/v1/runs/${run}/audit/segments`))).segments;
/** A small segment size and no retention: every archived entry may be trimmed at once. */
const SMALL = { segmentEntries: 100, retentionMs: 0 };

/**
 * A run of `n` entries: one real call, then copies of its entry appended through the ledger's
 * own append (cheap; the chain is the same rule). Entry `pendingAt`, if any, is an open call.
 */
async function runOf(n: number, pendingAt = 0): Promise<string> {
  const run = newRun("archive");
  expect((await propose(run, { tool: "noop", args: {} })).status).toBe(200);
  await runInDurableObject(runLedger(run), (_i, state) => {
    const sql = state.storage.sql;
    state.storage.transactionSync(() => {
      const row = sql.exec<RunRow>("SELECT * FROM run WHERE id = 1").one();
      const draft = firstDraft(sql);
      for (let seq = 2; seq <= n; seq++) {
        const open = seq === pendingAt;
        const entry: EntryDraft = {
          ...draft,
          call_id: `call-${seq}`,
          decision: open ? "pending" : "applied",
          lease_expires_at: open ? Date.now() + 86_400_000 : null,
        };
        append(sql, row, entry, null);
      }
    });
  });
  return run;
}

async function archive(run: string, cfg = SMALL, now = Date.now() + 1_000): Promise<number> {
  return archiveNow(run, cfg, now);
}

async function storedSeqs(run: string): Promise<number[]> {
  return runInDurableObject(runLedger(run), (_i, state) =>
    state.storage.sql
      .exec<{ seq: number }>("SELECT seq FROM audit ORDER BY seq")
      .toArray()
      .map((r) => r.seq),
  );
}

/** Every page of the audit, following `next_after` (JSON) or the Link header (NDJSON). */
async function readAll(run: string, ndjson: boolean): Promise<Entry[]> {
  const out: Entry[] = [];
  let path: string | null = `/v1/runs/${run}/audit?limit=700`;
  while (path !== null) {
    const res: Response = await get(path, ndjson ? { Accept: "application/x-ndjson" } : {});
    expect(res.status).toBe(200);
    if (ndjson) {
      const lines = (await res.text()).split("\n").filter((l) => l !== "");
      out.push(...lines.map((l) => JSON.parse(l) as Entry));
      const next = /<\?after=(\d+)&limit=(\d+)>/.exec(res.headers.get("Link") ?? "");
      path = next === null ? null : `/v1/runs/${run}/audit?after=${next[1]}&limit=${next[2]}`;
    } else {
      const page = await json<{ entries: Entry[]; next_after: number | null }>(res);
      out.push(...page.entries);
      path =
        page.next_after === null
          ? null
          : `/v1/runs/${run}/audit?after=${page.next_after}&limit=700`;
    }
  }
  return out;
}

describe("the audit archive", () => {
  it("archives 2,500 entries in 25 signed segments, trims them, and reads and verifies across R2", async () => {
    const run = await runOf(2_500, 5);
    expect(await archive(run)).toBe(25);
    const segments = await segmentsOf(run);
    expect(segments.map((s) => [s.first_seq, s.last_seq, s.key])).toEqual(
      Array.from({ length: 25 }, (_, i) => {
        const first = i * 100 + 1;
        const key = `audit/default/${run}/${String(first).padStart(12, "0")}-${String(first + 99).padStart(12, "0")}.ndjson`;
        return [first, first + 99, key];
      }),
    );
    const { keys } = await json<{ keys: PublicJwk[] }>(
      await get("/.well-known/toolfence-audit-keys"),
    );
    for (const s of segments) {
      const object = await env.AUDIT_ARCHIVE.head(s.key);
      const meta = object?.customMetadata ?? {};
      const head = { ...meta, seq: Number(meta.seq) } as unknown as SignedHead;
      expect(head).toMatchObject({ tenant: "default", run, seq: s.last_seq, hash: s.head_hash });
      expect(await verifyHead(head, keys)).toEqual({ ok: true });
    }
    // Trimmed: the object keeps only the open call and the last entry.
    expect(await storedSeqs(run)).toEqual([5, 2_500]);
    expect(segments.reduce((n, s) => n + s.trimmed, 0)).toBe(2_498);
    const seqs = Array.from({ length: 2_500 }, (_, i) => i + 1);
    const paged = await readAll(run, false);
    expect(paged.map((e) => e.seq)).toEqual(seqs);
    expect(paged[4]?.decision).toBe("pending");
    const exported = await readAll(run, true);
    expect(exported).toEqual(paged);
    const report = await verifyAudit(run);
    expect(report).toMatchObject({ ok: true, entries: 2_500, head: { seq: 2_500 } });
    const offline = verifyChain(exported as unknown as Record<string, unknown>[], {
      tenant: "default",
      run,
    });
    expect(offline).toEqual({ ok: true, entries: 2_500, head: report.head });
  });

  it("writes the same bytes and metadata when a segment is written again", async () => {
    const run = await runOf(150);
    const keep = { segmentEntries: 100, retentionMs: 86_400_000 };
    expect(await archive(run, keep)).toBe(1);
    const key = segmentKey("default", run, 1, 100);
    const first = await env.AUDIT_ARCHIVE.get(key);
    const body = await first?.text();
    const meta = first?.customMetadata;
    // As after a crash between the put and its row: the alarm writes the segment again.
    await runInDurableObject(runLedger(run), (_i, state) => {
      state.storage.sql.exec("DELETE FROM audit_segment");
    });
    expect(await archive(run, keep, Date.now() + 60_000)).toBe(1);
    const again = await env.AUDIT_ARCHIVE.get(key);
    expect(await again?.text()).toBe(body);
    expect(again?.customMetadata).toEqual(meta);
    expect(again?.httpMetadata?.contentType).toBe("application/x-ndjson; charset=utf-8");
    // Within the retention nothing was trimmed, and the rest waits for a full segment.
    expect((await storedSeqs(run)).length).toBe(150);
    expect((await segmentsOf(run)).length).toBe(1);
  });

  it("reports a segment deleted from R2 at its first seq, and the audit page names it", async () => {
    const run = await runOf(300);
    expect(await archive(run)).toBe(3);
    const key = segmentKey("default", run, 101, 200);
    await env.AUDIT_ARCHIVE.delete(key);
    const report = await verifyAudit(run);
    expect(report).toMatchObject({ ok: false, first_bad_seq: 101 });
    expect(report.problem).toContain(key);
    const page = await get(`/v1/runs/${run}/audit?after=150`);
    expect(page.status).toBe(500);
    expect(await json(page)).toMatchObject({ reason: "internal_error" });
  });

  it("reports a byte edited in an archived segment at its entry", async () => {
    const run = await runOf(300);
    expect(await archive(run)).toBe(3);
    const key = segmentKey("default", run, 201, 300);
    const text = (await (await env.AUDIT_ARCHIVE.get(key))?.text()) ?? "";
    const lines = text.split("\n");
    lines[9] = (lines[9] ?? "").replace('"call-210"', '"call-21O"');
    await env.AUDIT_ARCHIVE.put(key, lines.join("\n"));
    expect(await verifyAudit(run)).toMatchObject({ ok: false, first_bad_seq: 210 });
    expect((await verifyAudit(run)).problem).toContain("edited");
  });

  it("archives the whole log when the run is halted, with the default configuration", async () => {
    const run = newRun("archive");
    for (let i = 0; i < 3; i++) await propose(run, { tool: "noop", args: {} });
    await post(`/v1/runs/${run}/halt?reason=done`);
    // The halt rang the alarm for now: run it here unless it already ran by itself.
    await runDurableObjectAlarm(runLedger(run));
    await vi.waitFor(async () => {
      const segments = await segmentsOf(run);
      expect(segments.map((s) => [s.first_seq, s.last_seq, s.trimmed])).toEqual([[1, 4, 0]]);
    });
    // A refusal of the halted run arms the alarm again; its ring archives the new entry.
    expect((await propose(run, { tool: "noop", args: {} })).status).toBe(403);
    await vi.waitFor(async () => {
      await runDurableObjectAlarm(runLedger(run));
      expect((await segmentsOf(run)).map((s) => s.last_seq)).toEqual([4, 5]);
    });
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 5 });
  });

  it("archives the whole log when the run is past its deadline", async () => {
    const run = newRun("archive");
    for (let i = 0; i < 2; i++) await propose(run, { tool: "noop", args: {} });
    await editRun(runLedger(run), "deadline_at = 1");
    await runInDurableObject(runLedger(run), (_i, state) => state.storage.setAlarm(Date.now()));
    await runDurableObjectAlarm(runLedger(run));
    await vi.waitFor(async () => {
      expect((await segmentsOf(run)).map((s) => [s.first_seq, s.last_seq])).toEqual([[1, 2]]);
    });
  });

  it("neither archives nor trims a run it has no key to sign for", async () => {
    const run = await runOf(250);
    // Created outside local development, with no AUDIT_SIGNING_KEY set: nothing may sign.
    await editRun(runLedger(run), "local = 0");
    expect(await archive(run)).toBe(0);
    expect(await segmentsOf(run)).toEqual([]);
    expect((await storedSeqs(run)).length).toBe(250);
    expect(await verifyAudit(run)).toMatchObject({ ok: true, entries: 250 });
  });

  it("lists no segments for a run not yet archived, and refuses an unseen run", async () => {
    const run = newRun("archive");
    expect((await get(`/v1/runs/${run}/audit/segments`)).status).toBe(404);
    await propose(run, { tool: "noop", args: {} });
    expect(await segmentsOf(run)).toEqual([]);
  });
});
