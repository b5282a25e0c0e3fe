import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { entryHash, genesis, sha256HexSync, verifyChain } from "../../src/core/audit-chain.ts";
import {
  newSigningKey,
  publicJwk,
  type SignedHead,
  signHead,
  verifyHead,
} from "../../src/core/audit-head.ts";
import { canonicalize } from "../../src/core/canonical.ts";

const RUN = { tenant: "acme", run: "incident-42" };

/** A chain of `n` small entries, built by the rule. */
function chain(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let prev = genesis(RUN.tenant, RUN.run);
  for (let seq = 1; seq <= n; seq++) {
    const entry: Record<string, unknown> = {
      seq,
      prev,
      decision: seq % 2 ? "applied" : "block",
      of: null,
    };
    entry.hash = entryHash(entry);
    prev = entry.hash as string;
    out.push(entry);
  }
  return out;
}

describe("the audit hash chain", () => {
  it("starts from the run's genesis and verifies when intact", () => {
    expect(genesis("acme", "incident-42")).toBe(
      sha256HexSync('{"run":"incident-42","tenant":"acme"}'),
    );
    const log = chain(5);
    expect(verifyChain(log, RUN)).toEqual({
      ok: true,
      entries: 5,
      head: { seq: 5, hash: log[4]?.hash },
    });
  });

  it("hashes the RFC 8785 form without the hash member", () => {
    const entry = { seq: 1, prev: "p", z: 1, a: "é" };
    expect(entryHash({ ...entry, hash: "anything" })).toBe(sha256HexSync(canonicalize(entry)));
  });

  it("names the first edited entry", () => {
    const log = chain(5);
    log[2] = { ...log[2], decision: "escalate" };
    expect(verifyChain(log, RUN)).toMatchObject({
      ok: false,
      first_bad_seq: 3,
      problem: expect.stringContaining("edited"),
    });
  });

  it("names a deleted, an inserted and a reordered entry", () => {
    const deleted = chain(5).filter((e) => e.seq !== 3);
    expect(verifyChain(deleted, RUN)).toMatchObject({ ok: false, first_bad_seq: 4 });
    const inserted = chain(5);
    inserted.splice(2, 0, { ...inserted[1] });
    expect(verifyChain(inserted, RUN)).toMatchObject({ ok: false, first_bad_seq: 2 });
    const reordered = chain(5);
    [reordered[1], reordered[2]] = [
      reordered[2] as Record<string, unknown>,
      reordered[1] as Record<string, unknown>,
    ];
    expect(verifyChain(reordered, RUN)).toMatchObject({ ok: false, first_bad_seq: 3 });
  });

  it("refuses a log of another run (its genesis differs)", () => {
    expect(verifyChain(chain(2), { tenant: "acme", run: "other" })).toMatchObject({
      ok: false,
      first_bad_seq: 1,
    });
  });
});

describe("signed heads", () => {
  it("verify with the signing key, and with it once retired", async () => {
    const key = await newSigningKey();
    const next = await newSigningKey();
    const head = await signHead(
      { ...RUN, seq: 5, hash: "ab".repeat(32), at: "2026-12-03T00:00:00.000Z" },
      key,
    );
    expect(head.kid).toBe(key.kid);
    expect(await verifyHead(head, [publicJwk(key)])).toEqual({ ok: true });
    expect(await verifyHead(head, [publicJwk(next), publicJwk(key)])).toEqual({ ok: true });
  });

  it("fails on a changed head, an unknown key, or another key's signature", async () => {
    const key = await newSigningKey();
    const other = await newSigningKey();
    const head = await signHead(
      { ...RUN, seq: 5, hash: "ab".repeat(32), at: "2026-12-03T00:00:00.000Z" },
      key,
    );
    expect(await verifyHead({ ...head, seq: 6 }, [publicJwk(key)])).toEqual({
      ok: false,
      problem: "bad signature",
    });
    expect(await verifyHead(head, [publicJwk(other)])).toMatchObject({
      ok: false,
      problem: expect.stringContaining("unknown key"),
    });
    expect(await verifyHead({ ...head, kid: other.kid }, [publicJwk(other)])).toEqual({
      ok: false,
      problem: "bad signature",
    });
  });

  it("fails on a signature that is not base64url, the same signature in base64 included", async () => {
    const key = await newSigningKey();
    const head = await signHead(
      { ...RUN, seq: 5, hash: "ab".repeat(32), at: "2026-12-03T00:00:00.000Z" },
      key,
    );
    const base64 = Buffer.from(head.sig, "base64url").toString("base64");
    for (const sig of ["not a signature!", `${head.sig}=`, base64]) {
      expect(await verifyHead({ ...head, sig }, [publicJwk(key)])).toEqual({
        ok: false,
        problem: "bad signature",
      });
    }
    // A head read from a file is not checked for its types first (npm run audit).
    for (const sig of [undefined, null, 5]) {
      const read = { ...head, sig } as unknown as SignedHead;
      expect(await verifyHead(read, [publicJwk(key)])).toEqual({
        ok: false,
        problem: "bad signature",
      });
    }
  });

  it("names a new key by its public key: the start of the SHA-256 of x, base64url", async () => {
    const key = await newSigningKey();
    const x = Buffer.from(key.x, "base64url");
    const digest = Buffer.from(await crypto.subtle.digest("SHA-256", x));
    expect(x.byteLength).toBe(32);
    expect(key.kid).toBe(`tf-audit-${digest.toString("base64url").slice(0, 16)}`);
  });
});
