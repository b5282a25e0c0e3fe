/**
 * API keys and their records: the key format, the stored record's schema, roles, and the
 * KV name a key's digest is filed under.
 */
import * as v from "valibot";
import { toBase64Url } from "./base64url.ts";
import { err, ok, type Result } from "./result.ts";

/**
 * API keys as data: the stored record, its storage name, and the shape of a key on the wire.
 * Pure (no Cloudflare imports): the worker reads records with it and `scripts/keys.ts`
 * writes them with it, so both sides agree on one schema.
 */

/** What a key may do: `agent` proposes calls and reads run status; `operator` also audits and halts. */
export type Role = "agent" | "operator";

/** Roles in order of power; a role may do everything the roles before it may. */
export const ROLES: readonly Role[] = ["agent", "operator"];

/**
 * Tenants name Durable Objects (`${tenant}/${runId}`) and cache scopes, so they are short,
 * lower-case, and never contain the `/` that separates the two parts.
 */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Tool names as the contracts spell them. */
const TOOL_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`,
 * capped in length so a huge header is refused before it is hashed.
 */
export const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]{16,200}=*$/;

/** Prefix of issued keys: recognisable in logs and by secret scanners. */
export const KEY_PREFIX = "tf_";

/** One stored key, found under `key:<sha256 hex of the key>`. */
export interface KeyRecord {
  /** Tenant the key acts for; every run it touches is namespaced by it. */
  tenant: string;
  /** What the key may do. */
  role: Role;
  /** Tools the key may call, or absent for every tool the policy allows. */
  tools?: string[];
  /** Human note: who or what holds the key. */
  label: string;
  /** When the key was issued (ISO 8601). */
  created_at: string;
}

const KeyRecordSchema = v.strictObject({
  tenant: v.pipe(v.string(), v.regex(TENANT_PATTERN)),
  role: v.picklist(ROLES),
  tools: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(TOOL_PATTERN))),
      v.minLength(1),
      v.maxLength(64),
      v.check((names) => new Set(names).size === names.length, "tools are listed once each"),
    ),
  ),
  label: v.pipe(v.string(), v.maxLength(200)),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});

/** The storage name of a key's record, from the SHA-256 hex of the key. */
export function recordName(digestHex: string): string {
  return `key:${digestHex}`;
}

/** Check a record read from storage, or about to be written. */
export function parseKeyRecord(value: unknown): Result<KeyRecord, string> {
  const parsed = v.safeParse(KeyRecordSchema, value);
  if (parsed.success) return ok(parsed.output);
  return err(parsed.issues.map((i) => `${v.getDotPath(i) ?? "record"}: ${i.message}`).join("; "));
}

/** Whether `role` may do what `needed` may. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** A new random key: the prefix and 256 bits of randomness, base64url without padding. */
export function newApiKey(): string {
  return KEY_PREFIX + toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The shortest signing secret accepted: 256 bits as hex or base64 text. */
const MIN_SECRET_CHARS = 32;

/**
 * The deployment's `CONSOLE_SECRET` when it is long enough to use: it signs console sessions
 * and seals MCP task ids; null when it is unset or too short.
 */
export function consoleSecret(vars: { CONSOLE_SECRET?: string }): string | null {
  const secret = vars.CONSOLE_SECRET;
  return secret !== undefined && secret.length >= MIN_SECRET_CHARS ? secret : null;
}
