import { describe, expect, it } from "vitest";
import { type ExportTexts, verifyExport } from "../../scripts/lib/audit-verify.ts";
import { entryHash } from "../../src/core/audit-chain.ts";
import { get, newRun, propose } from "../helpers.ts";

/** A run of `n` entries, exported as NDJSON with its signed head and the published keys. */
async function exported(n: number): Promise<ExportTexts & { run: string }> {
  const run = newRun("export");
  for (let i = 0; i < n; i++) await propose(run, { tool: "noop", args: {} });
  const [log, head, keys] = await Promise.all(
    [
      get(`/v1/runs/${run}/audit`, { Accept: "application/x-ndjson" }),
      get(`/v1/runs/${run}/audit/head`),
      get("/.well-known/toolfence-audit-keys"),
    ].map(async (res) => (await res).text()),
  );
  return { run, log: log ?? "", head: head ?? null, keys: keys ?? null };
}

const lines = (log: string) => log.trim().split("\n");

/** Entry `of` of the log, as the fence wrote it, made the next one: linked and hashed. */
function forgedAfter(log: string, changes: Record<string, unknown>): string {
  const last = JSON.parse(lines(log).at(-1) ?? "{}") as Record<string, unknown>;
  const next: Record<string, unknown> = {
    ...last,
    ...changes,
    seq: (last.seq as number) + 1,
    prev: last.hash,
  };
  next.hash = entryHash(next);
  return `${log.trimEnd()}\n${JSON.stringify(next)}\n`;
}

const strict = { acceptUnsignedTail: false };

describe("verifying an exported audit log", () => {
  it("passes the fence's export of 16 entries signed at 16", async () => {
    const texts = await exported(16);
    expect(lines(texts.log)).toHaveLength(16);
    expect(await verifyExport(texts, strict)).toMatchObject({
      ok: true,
      entries: 16,
      head: { seq: 16 },
      signed: expect.stringMatching(/^tf-audit-/),
      unsigned: 0,
    });
  });

  it("fails an entry appended after the signed head, and counts it when an unsigned tail is accepted", async () => {
    const texts = await exported(16);
    const log = forgedAfter(texts.log, { tool: "delete_everything", decision: "applied" });
    const forged = { ...texts, log };
    expect(await verifyExport(forged, strict)).toMatchObject({
      ok: false,
      entries: 17,
      first_bad_seq: 17,
      unsigned: 1,
      problem: expect.stringContaining("1 entry after the signed head (seq 16)"),
    });
    expect(await verifyExport(forged, { acceptUnsignedTail: true })).toMatchObject({
      ok: true,
      entries: 17,
      head: { seq: 17 },
      signed: expect.stringMatching(/^tf-audit-/),
      unsigned: 1,
    });
  });

  it("refuses a duplicate member that JSON.parse would resolve to its last value", async () => {
    const texts = await exported(16);
    const all = lines(texts.log);
    // A reader taking the first `tool` sees another tool; the hash covers the last one.
    all[4] = all[4]?.replace(/^\{/, '{"tool":"delete_everything",') ?? "";
    const duplicated = all.join("\n");
    expect(JSON.parse(all[4] ?? "")).toMatchObject({ seq: 5, tool: "noop" });
    expect(await verifyExport({ ...texts, log: duplicated }, strict)).toMatchObject({
      ok: false,
      first_bad_seq: 5,
      problem: expect.stringMatching(/^line 5 is not an entry: Duplicate member name "tool"/),
    });
    const head = texts.head?.replace(/^\{/, '{"seq":1,') ?? null;
    expect(await verifyExport({ ...texts, head }, strict)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^head: Duplicate member name "seq"/),
    });
  });
});
