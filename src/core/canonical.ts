/**
 * RFC 8785 canonical JSON and the SHA-256 digests built on it: a call's fingerprint and the
 * result cache's key.
 */
import jcs from "canonicalize";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/**
 * RFC 8785 (JSON Canonicalization Scheme): sorted keys by UTF-16 code units, ECMAScript
 * number form, no whitespace. Throws on what JCS cannot represent (NaN, Infinity, lone
 * surrogates, cycles); the strict parser has already refused those on the call path.
 */
export function canonicalize(value: unknown): string {
  const text = jcs(value);
  // RFC 8785 §3.2: only JSON values have a canonical form; `undefined` and functions do not.
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += HEX[byte];
  return hex;
}

/**
 * SHA-256 of the canonical call: two calls with one intent have one fingerprint. The gate
 * passes the arguments in their redacted form (src/core/redact.ts), never a sensitive value.
 */
export function fingerprint(tool: string, args: unknown): Promise<string> {
  return sha256Hex(canonicalize({ tool, args }));
}

/** What a cached result is keyed by. */
export interface CacheKeyInput {
  /** Tool name. */
  tool: string;
  /** Tool version: bumping it is the invalidation. */
  version: string;
  /** The validated output of the tool's input schema (defaults applied). */
  args: unknown;
  /** Tenant id, or null when the contract declares its results shared. */
  tenant: string | null;
}

/**
 * Hex SHA-256 of the JCS form of `{ tool, version, args }`, plus `tenant` when the
 * result is tenant-scoped, so one tenant can never read another's entry.
 */
export async function cacheKey(input: CacheKeyInput): Promise<string> {
  const { tool, version, args, tenant } = input;
  const scoped = tenant === null ? { tool, version, args } : { tool, version, args, tenant };
  return sha256Hex(canonicalize(scoped));
}
