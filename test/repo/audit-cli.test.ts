import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { entryHash, genesis, verifyChain } from "../../src/core/audit-chain.ts";
import { newSigningKey, type PrivateJwk, publicJwk, signHead } from "../../src/core/audit-head.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "toolfence-audit-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function chain(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let prev = genesis("acme", "r1");
  for (let seq = 1; seq <= n; seq++) {
    const e: Record<string, unknown> = { seq, prev, decision: "applied", tool: "noop", of: null };
    e.hash = entryHash(e);
    prev = e.hash as string;
    out.push(e);
  }
  return out;
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** A head over the log's first `seq` entries, signed by `key`. */
function headOf(log: Record<string, unknown>[], seq: number, key: PrivateJwk) {
  const hash = log[seq - 1]?.hash as string;
  return signHead({ tenant: "acme", run: "r1", seq, hash, at: "2026-12-03T00:00:00Z" }, key);
}

const ndjson = (entries: Record<string, unknown>[]) =>
  entries.map((e) => JSON.stringify(e)).join("\n");

function verify(...args: string[]) {
  const run = spawnSync(process.execPath, [join(ROOT, "scripts/audit.ts"), "verify", ...args], {
    encoding: "utf8",
  });
  return { code: run.status, out: run.stdout ? JSON.parse(run.stdout) : null, err: run.stderr };
}

describe("npm run audit -- verify", () => {
  it("passes an intact log and a log with a good signed head", async () => {
    const log = chain(4);
    const key = await newSigningKey();
    const head = await headOf(log, 4, key);
    const f = file("ok.ndjson", ndjson(log));
    expect(verify("--file", f, "--tenant", "acme", "--run", "r1")).toMatchObject({
      code: 0,
      out: { ok: true, entries: 4 },
    });
    const withHead = verify(
      "--file",
      f,
      "--head",
      file("h.json", JSON.stringify(head)),
      "--keys",
      file("k.json", JSON.stringify({ keys: [publicJwk(key)] })),
    );
    expect(withHead).toMatchObject({ code: 0, out: { ok: true, signed: key.kid } });
  });

  it("names the first bad seq of an edited log, and a truncation against the head", async () => {
    const log = chain(4);
    const edited = log.map((e) => (e.seq === 2 ? { ...e, tool: "add_comment" } : e));
    expect(
      verify("--file", file("ed.ndjson", ndjson(edited)), "--tenant", "acme", "--run", "r1"),
    ).toMatchObject({
      code: 1,
      out: { ok: false, first_bad_seq: 2 },
    });
    const key = await newSigningKey();
    const head = await headOf(log, 4, key);
    const cut = verify(
      "--file",
      file("cut.ndjson", ndjson(log.slice(0, 3))),
      "--head",
      file("h2.json", JSON.stringify(head)),
    );
    expect(cut).toMatchObject({
      code: 1,
      out: { ok: false, first_bad_seq: 4, problem: expect.stringContaining("truncated") },
    });
  });

  it("fails a head with a bad signature or an unknown key", async () => {
    const log = chain(2);
    const [key, other] = [await newSigningKey(), await newSigningKey()];
    const head = await headOf(log, 2, key);
    const f = file("two.ndjson", ndjson(log));
    const keys = file("ko.json", JSON.stringify({ keys: [publicJwk(other)] }));
    expect(
      verify("--file", f, "--head", file("h3.json", JSON.stringify(head)), "--keys", keys),
    ).toMatchObject({
      code: 1,
      out: { ok: false, problem: expect.stringContaining("unknown key") },
    });
    const forged = file("h4.json", JSON.stringify({ ...head, kid: other.kid }));
    expect(verify("--file", f, "--head", forged, "--keys", keys)).toMatchObject({
      code: 1,
      out: { ok: false, problem: "head: bad signature" },
    });
  });

  it("fails a head of another run, or one whose hash is not the log's", async () => {
    const log = chain(2);
    const key = await newSigningKey();
    const f = file("mine.ndjson", ndjson(log));
    const theirs = await signHead(
      {
        tenant: "acme",
        run: "r2",
        seq: 2,
        hash: log[1]?.hash as string,
        at: "2026-12-03T00:00:00Z",
      },
      key,
    );
    const other = file("h5.json", JSON.stringify(theirs));
    expect(verify("--file", f, "--tenant", "acme", "--run", "r1", "--head", other)).toMatchObject({
      code: 1,
      out: { ok: false, first_bad_seq: 2, problem: expect.stringContaining("acme/r2") },
    });
    const elsewhere = await headOf(log, 2, key);
    const wrongHash = file("h6.json", JSON.stringify({ ...elsewhere, hash: "0".repeat(64) }));
    expect(verify("--file", f, "--head", wrongHash)).toMatchObject({
      code: 1,
      out: { ok: false, first_bad_seq: 2, problem: expect.stringContaining("hash") },
    });
  });

  it("refuses to guess the run without a head or --tenant and --run", () => {
    expect(verify("--file", file("x.ndjson", ndjson(chain(1))))).toMatchObject({ code: 2 });
  });
});

// An export of 16 entries and its head, signed at 16 with the development key, and the JWKS,
// as a fence under `npm run dev` served them (GET /v1/runs/incident-16/audit as NDJSON,
// /audit/head, /.well-known/toolfence-audit-keys); forged-tail.ndjson is that export with a
// 17th entry linked and hashed as the fence would, duplicate-member.ndjson the export with a
// second `tool` member put first in entry 5.
const EXPORT = join(ROOT, "test/fixtures/audit-export");
const exported = (name: string) => join(EXPORT, name);
const signedBy = ["--head", exported("head.json"), "--keys", exported("keys.json")];
const lastWins = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("npm run audit -- verify, on the fence's export", () => {
  it("passes the export signed at its last entry, no entry unsigned", () => {
    expect(verify("--file", exported("run.ndjson"), ...signedBy)).toMatchObject({
      code: 0,
      out: { ok: true, entries: 16, signed: "tf-audit-development", unsigned: 0 },
    });
  });

  it("fails an entry appended after the signed head, unless an unsigned tail is accepted, and counts it", () => {
    const forged = exported("forged-tail.ndjson");
    // The forgery chains: only the head says where the fence's log ended.
    expect(verifyChain(lastWins(forged), { tenant: "default", run: "incident-16" }).ok).toBe(true);
    expect(verify("--file", forged, ...signedBy)).toMatchObject({
      code: 1,
      out: {
        ok: false,
        entries: 17,
        first_bad_seq: 17,
        unsigned: 1,
        problem: expect.stringContaining("after the signed head (seq 16)"),
      },
    });
    expect(verify("--file", forged, ...signedBy, "--accept-unsigned-tail")).toMatchObject({
      code: 0,
      out: { ok: true, entries: 17, signed: "tf-audit-development", unsigned: 1 },
    });
  });

  it("refuses a duplicate member in an entry or in the head, which JSON.parse takes the last of", () => {
    const duplicated = exported("duplicate-member.ndjson");
    expect(lastWins(duplicated)[4]).toMatchObject({ seq: 5, tool: "noop" });
    expect(verify("--file", duplicated, ...signedBy)).toMatchObject({
      code: 1,
      out: {
        ok: false,
        first_bad_seq: 5,
        problem: 'line 5 is not an entry: Duplicate member name "tool" at path "tool".',
      },
    });
    const head = readFileSync(exported("head.json"), "utf8").replace(/^\{/, '{"seq":15,');
    const twice = file("head-twice.json", head);
    const keys = ["--keys", exported("keys.json")];
    expect(verify("--file", exported("run.ndjson"), "--head", twice, ...keys)).toMatchObject({
      code: 1,
      out: { ok: false, problem: expect.stringMatching(/^head: Duplicate member name "seq"/) },
    });
  });
});
