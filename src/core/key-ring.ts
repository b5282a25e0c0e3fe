/**
 * The keys upstream connections are encrypted under (the Worker secret `CONNECTION_KEYS`):
 * `kid:key` pairs separated by commas, each key 32 random bytes as base64url. The first pair
 * encrypts; every pair decrypts what was sealed under its kid, which is stored beside each
 * ciphertext. Rotating is putting a new first pair before the old ones, and dropping an old
 * one once nothing sealed under it is left (src/connections/token-keys.ts re-seals under the
 * first key whenever it reads or writes a connection).
 */
import { fromBase64Url } from "./base64url.ts";
import { err, ok, type Result } from "./result.ts";

/** One key of the ring. */
export interface RingKey {
  /** Its id, stored beside every ciphertext it sealed. */
  kid: string;
  /** The 32 bytes of the AES-256-GCM key. */
  raw: Uint8Array<ArrayBuffer>;
}

/** A key id: short, and safe beside a ciphertext and in a log line. */
const KID = /^[A-Za-z0-9_-]{1,32}$/;

/** AES-256: 32 bytes. */
const KEY_BYTES = 32;

/** At most this many keys in the ring. */
const MAX_KEYS = 8;

/** The ring `text` writes, or what is wrong with it (never quoting a key). */
export function parseKeyRing(text: string | undefined): Result<RingKey[], string> {
  if (text === undefined || text.trim() === "") return err("CONNECTION_KEYS is not set");
  const pairs = text.split(",").map((p) => p.trim());
  if (pairs.length > MAX_KEYS) return err(`CONNECTION_KEYS holds more than ${MAX_KEYS} keys`);
  const ring: RingKey[] = [];
  for (const [i, pair] of pairs.entries()) {
    const at = pair.indexOf(":");
    const kid = at < 0 ? "" : pair.slice(0, at);
    const raw = at < 0 ? null : fromBase64Url(pair.slice(at + 1));
    if (!KID.test(kid) || raw === null || raw.byteLength !== KEY_BYTES) {
      return err(
        `CONNECTION_KEYS entry ${i + 1} is not kid:key (a 1-32 character id of [A-Za-z0-9_-], then 32 bytes as base64url)`,
      );
    }
    if (ring.some((k) => k.kid === kid)) return err(`CONNECTION_KEYS names kid ${kid} twice`);
    ring.push({ kid, raw });
  }
  return ok(ring);
}
