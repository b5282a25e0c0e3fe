/**
 * Values the fence hands out and takes back without storing them (an MCP task id, a connect
 * link): JSON sealed with AES-256-GCM under a key derived from a deployment secret and a label
 * of the use, bound to additional data (its run, its tenant and owner). Whoever holds one can
 * neither read nor alter it, nor take it elsewhere: a forged, altered or misplaced one does not
 * open. Web Crypto only, so the worker and Node's scripts read the same bytes.
 */
import { fromBase64Url, toBase64Url } from "./base64url.ts";

/** AES-GCM's recommended nonce length (NIST SP 800-38D §8.2): 96 bits, random per value. */
const NONCE_BYTES = 12;

const UTF8 = new TextEncoder();

const keys = new Map<string, Promise<CryptoKey>>();

/** The AES-256 key of one use (`label`) of `secret`: SHA-256 of the two, once per isolate. */
function sealingKey(label: string, secret: string): Promise<CryptoKey> {
  const name = label + secret;
  let key = keys.get(name);
  if (key === undefined) {
    key = crypto.subtle
      .digest("SHA-256", UTF8.encode(name))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keys.set(name, key);
  }
  return key;
}

/** What a value is sealed with: the use's label, the secret, and the data it is bound to. */
export interface SealingContext {
  /** Sets this use's key apart from the other uses of the same secret (ends in a newline). */
  label: string;
  /** The deployment secret the key is derived from. */
  secret: string;
  /** The additional data the value is bound to: it opens with exactly this. */
  boundTo: string;
}

/** `value` as JSON, sealed: base64url of the nonce and the ciphertext with its tag. */
export async function seal(ctx: SealingContext, value: unknown): Promise<string> {
  return sealWithKey(await sealingKey(ctx.label, ctx.secret), ctx.boundTo, value);
}

/** The JSON value `text` seals, or null when it is not one this context sealed. */
export async function unseal(ctx: SealingContext, text: string): Promise<unknown> {
  return unsealWithKey(await sealingKey(ctx.label, ctx.secret), ctx.boundTo, text);
}

/** `value` as JSON, sealed under `key` and bound to `boundTo`. */
export async function sealWithKey(
  key: CryptoKey,
  boundTo: string,
  value: unknown,
): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: nonce, additionalData: UTF8.encode(boundTo) },
    key,
    UTF8.encode(JSON.stringify(value)),
  );
  const bytes = new Uint8Array(NONCE_BYTES + sealed.byteLength);
  bytes.set(nonce);
  bytes.set(new Uint8Array(sealed), NONCE_BYTES);
  return toBase64Url(bytes);
}

/** The JSON value `text` seals under `key` and `boundTo`, or null when it does not open. */
export async function unsealWithKey(
  key: CryptoKey,
  boundTo: string,
  text: string,
): Promise<unknown> {
  const bytes = fromBase64Url(text);
  if (bytes === null || bytes.byteLength <= NONCE_BYTES) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, NONCE_BYTES), additionalData: UTF8.encode(boundTo) },
      key,
      bytes.subarray(NONCE_BYTES),
    );
    return JSON.parse(new TextDecoder().decode(plain)) as unknown;
  } catch {
    // Altered, forged, or sealed for other data or another use: the tag does not verify.
    return null;
  }
}
