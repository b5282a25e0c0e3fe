/**
 * Upstream tokens at rest: AES-256-GCM under the first key of `CONNECTION_KEYS`
 * (src/core/key-ring.ts), a fresh 96-bit nonce per write, the key's id stored beside the
 * ciphertext, and additional data that binds it to its tenant, owner and upstream, so a
 * ciphertext copied into another row does not open. A row sealed under another key of the
 * ring opens with that key and is sealed again under the first one at its next write.
 */
import { parseKeyRing, type RingKey } from "../core/key-ring.ts";
import { err, ok, type Result } from "../core/result.ts";
import { sealWithKey, unsealWithKey } from "../core/sealed.ts";

/** A secret as stored: the key's id and base64url of the nonce and ciphertext with its tag. */
export interface SealedSecret {
  /** Which key of the ring sealed it. */
  kid: string;
  /** The nonce, then the ciphertext and its tag, as base64url. */
  sealed: string;
}

/** The ring, its keys imported once per isolate for each value of the secret. */
export interface KeyRing {
  /** The key that seals. */
  current: { kid: string; key: CryptoKey };
  /** Every key, by id, for opening. */
  byKid: ReadonlyMap<string, CryptoKey>;
}

const rings = new Map<string, Promise<Result<KeyRing, string>>>();

/** The deployment's key ring, or why there is none (the secret unset or malformed). */
export function keyRingOf(env: Env): Promise<Result<KeyRing, string>> {
  const text = env.CONNECTION_KEYS ?? "";
  let ring = rings.get(text);
  if (ring === undefined) {
    ring = importRing(parseKeyRing(text));
    rings.set(text, ring);
  }
  return ring;
}

async function importRing(parsed: Result<RingKey[], string>): Promise<Result<KeyRing, string>> {
  if (!parsed.ok) return parsed;
  const byKid = new Map<string, CryptoKey>();
  for (const { kid, raw } of parsed.value) {
    byKid.set(
      kid,
      await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]),
    );
  }
  const first = parsed.value[0];
  const key = first === undefined ? undefined : byKid.get(first.kid);
  if (first === undefined || key === undefined) return err("CONNECTION_KEYS is not set");
  return ok({ current: { kid: first.kid, key }, byKid });
}

/** `value` as JSON, sealed under the ring's current key and bound to `boundTo`. */
export async function sealSecret(
  ring: KeyRing,
  boundTo: string,
  value: unknown,
): Promise<SealedSecret> {
  return { kid: ring.current.kid, sealed: await sealWithKey(ring.current.key, boundTo, value) };
}

/**
 * The value `secret` seals, or null when it does not open: its key is no longer in the ring,
 * or the ciphertext was altered or belongs to another row.
 */
export async function openSecret(
  ring: KeyRing,
  boundTo: string,
  secret: SealedSecret,
): Promise<unknown> {
  const key = ring.byKid.get(secret.kid);
  return key === undefined ? null : unsealWithKey(key, boundTo, secret.sealed);
}
