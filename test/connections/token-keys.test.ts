import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PrincipalConnections } from "../../src/connections/PrincipalConnections.ts";
import { keyRingOf, openSecret, sealSecret } from "../../src/connections/token-keys.ts";
import { sha256Hex } from "../../src/core/canonical.ts";
import { parseKeyRing } from "../../src/core/key-ring.ts";
import { callNotes, connect, connectUrlOf, principal } from "./helpers.ts";
import { NOTES, StandIn } from "./stand-in.ts";

afterEach(() => vi.restoreAllMocks());

const K1 = "test:6b0Y3cD5hK9pQ2rS4tU6vW8xZ1aB3cD5eF7gH9jK0lM";
const K2 = "next:BMGcbQfLTngQNUZQJUbWoSPuEnMQSYh6krcsohgrXeg";

const ring = async (text: string) => {
  const r = await keyRingOf({ ...env, CONNECTION_KEYS: text });
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe("the key ring of CONNECTION_KEYS", () => {
  it("refuses a missing or malformed secret, saying why without quoting a key", () => {
    expect(parseKeyRing(undefined)).toEqual({ ok: false, error: "CONNECTION_KEYS is not set" });
    const short = parseKeyRing("k1:c2hvcnQ");
    expect(short.ok).toBe(false);
    expect(JSON.stringify(short)).not.toContain("c2hvcnQ");
    expect(parseKeyRing(`${K1},${K1}`)).toEqual({
      ok: false,
      error: "CONNECTION_KEYS names kid test twice",
    });
    expect(parseKeyRing(`bad kid:${K1.split(":")[1]}`).ok).toBe(false);
  });

  it("seals under its first key, binds each ciphertext to its row, opens what an older key sealed", async () => {
    const old = await ring(K1);
    const sealed = await sealSecret(old, "row-1", { token: "t" });
    expect(sealed.kid).toBe("test");
    const rotated = await ring(`${K2},${K1}`);
    expect(await openSecret(rotated, "row-1", sealed)).toEqual({ token: "t" });
    expect(await openSecret(rotated, "row-2", sealed)).toBeNull();
    expect((await sealSecret(rotated, "row-1", {})).kid).toBe("next");
    expect(await openSecret(await ring(K2), "row-1", sealed)).toBeNull();
  });
});

describe("rotating the key of a connection", () => {
  it("seals it again under the new first key at its next use; a key dropped from the ring ends it", async () => {
    const standIn = new StandIn().install();
    const who = await principal();
    const first = await callNotes(who);
    await connect(standIn, connectUrlOf(first.body), who.key, "ada");
    const name = `default/key.${await sha256Hex(who.key)}`;
    await runInDurableObject(env.CONNECTIONS.getByName(name), async (_, state) => {
      const kid = () => state.storage.sql.exec("SELECT kid FROM connection").toArray()[0]?.kid;
      expect(kid()).toBe("test");
      const rotated = new PrincipalConnections(state, { ...env, CONNECTION_KEYS: `${K2},${K1}` });
      expect((await rotated.token(NOTES)).kind).toBe("live");
      expect(kid()).toBe("next");
      const dropped = new PrincipalConnections(state, { ...env, CONNECTION_KEYS: K1 });
      expect(await dropped.token(NOTES)).toEqual({ kind: "none" });
      expect(kid()).toBeUndefined();
    });
  });
});
