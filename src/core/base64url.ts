/**
 * base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2), the one text form of
 * bytes in the fence: API keys, Ed25519 signatures and key ids, sealed task ids, console
 * cookies, PKCE verifiers and challenges (RFC 7636 §4.2). Built on `btoa`/`atob`, which the
 * worker and Node both have; Node 24, where the audit and replay scripts run this core, has no
 * `Uint8Array.prototype.toBase64` yet.
 */

/** Bytes handed to `String.fromCharCode` at once: a spread of a large array overflows the stack. */
const CHUNK_BYTES = 0x2000;

/** Only the base64url alphabet; padding is never written, so never read. */
const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** `bytes` as base64url, without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK_BYTES));
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The bytes a base64url text stands for, or null when it is not base64url as `toBase64Url`
 * writes it: a character outside the alphabet (`+`, `/`, `=` included), a length no bytes have
 * (one character over a multiple of four), or unused low bits that are not zero (RFC 4648
 * §3.5), so that one byte string has exactly one text.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!ALPHABET.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return toBase64Url(bytes) === text ? bytes : null;
}
