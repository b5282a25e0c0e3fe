import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../core/canonical.ts";
import { parseStrictJson } from "../core/json.ts";
import { BEARER_TOKEN, parseKeyRecord, type Role, recordName, roleAllows } from "../core/keys.ts";
import { refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { AppEnv, Principal } from "./context.ts";
import { problem } from "./problem.ts";

/** Who the development key acts as: the tenant and role the local demo and tests use. */
const DEVELOPMENT: Principal = { tenant: "default", role: "operator", tools: null, keyId: null };

/** Hosts a request can only carry when it never crossed Cloudflare's network. */
const LOOPBACK: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** RFC 6750 §3: the challenge sent with every 401. */
const CHALLENGE = 'Bearer realm="toolfence"';

/** Why a request carries no usable credentials, and the RFC 6750 §3.1 error code, if any. */
export interface AuthFailure {
  /** What to tell the caller. */
  detail: string;
  /** `invalid_request` for a malformed header, `invalid_token` for an unknown key. */
  error: "invalid_request" | "invalid_token" | null;
}

/**
 * Establish the principal from `Authorization: Bearer <key>` (RFC 6750 §2.1). Every failure
 * is a 401 `unauthenticated`, malformed headers included (RFC 6750 §3.1 would allow 400):
 * one answer for every credential problem tells an agent one thing, to fix its key.
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    const host = new URL(c.req.url).hostname;
    const found = await principalOf(c.env, c.req.header("Authorization") ?? null, host);
    if (!found.ok) {
      const { detail, error } = found.error;
      const challenge = error === null ? CHALLENGE : `${CHALLENGE}, error="${error}"`;
      return problem(refuse("unauthenticated", detail), {}, { "WWW-Authenticate": challenge });
    }
    c.set("principal", found.value);
    await next();
  };
}

/** Refuse callers whose role is below `needed` (RFC 6750 §3.1 `insufficient_scope`). */
export function requireRole(needed: Role): MiddlewareHandler<AppEnv> {
  return async function requireRole(c, next) {
    const { role } = c.get("principal");
    if (!roleAllows(role, needed)) {
      const detail = `This route needs an ${needed} key; this key's role is ${role}.`;
      const challenge = `${CHALLENGE}, error="insufficient_scope"`;
      return problem(refuse("forbidden_role", detail), {}, { "WWW-Authenticate": challenge });
    }
    await next();
  };
}

async function principalOf(
  env: Env,
  header: string | null,
  host: string,
): Promise<Result<Principal, AuthFailure>> {
  if (header === null) {
    return err({ detail: "Send Authorization: Bearer <key>.", error: null });
  }
  // RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: one or more spaces follow.
  const match = /^bearer +(\S*)$/i.exec(header);
  const token = match?.[1] ?? "";
  if (!BEARER_TOKEN.test(token)) {
    return err({
      detail: "The Authorization header is not Bearer <key>.",
      error: "invalid_request",
    });
  }
  return principalOfKey(env, token, host);
}

/**
 * The principal a well-formed key acts as: the development key on a loopback host, else
 * the stored record of its digest. The console signs operators in with it.
 */
export async function principalOfKey(
  env: Env,
  token: string,
  host: string,
): Promise<Result<Principal, AuthFailure>> {
  if (env.DEV_KEY !== undefined && LOOPBACK.has(host) && (await sameKey(token, env.DEV_KEY))) {
    return ok(DEVELOPMENT);
  }
  return principalOfDigest(env, await sha256Hex(token), host);
}

/**
 * The principal of a key known by its SHA-256 hex (null: the development key), as of now: a
 * console session re-checks it on every request, so a revoked key's sessions end at once.
 */
export async function principalOfDigest(
  env: Env,
  digest: string | null,
  host: string,
): Promise<Result<Principal, AuthFailure>> {
  if (digest === null) {
    const dev = env.DEV_KEY !== undefined && LOOPBACK.has(host);
    return dev ? ok(DEVELOPMENT) : err({ detail: "The key is not known.", error: "invalid_token" });
  }
  // The lookup compares digests, never keys. Its timing can at most tell how much of the
  // presented key's SHA-256 matches a stored one, and choosing a key whose digest has a
  // wanted prefix is a preimage search, so the timing never leads an attacker to a key.
  const stored = await env.API_KEYS.get(recordName(digest), "text");
  if (stored === null) return err({ detail: "The key is not known.", error: "invalid_token" });
  const json = parseStrictJson(stored, { maxDepth: 3 });
  const record = json.ok ? parseKeyRecord(json.value) : err(json.error.detail);
  if (!record.ok) {
    console.error("invalid key record", recordName(digest), record.error);
    return err({ detail: "The key's record is not valid.", error: "invalid_token" });
  }
  const { tenant, role, tools } = record.value;
  return ok({ tenant, role, tools: tools ?? null, keyId: digest });
}

/**
 * Compare two keys in constant time: hash both first so the compared lengths never depend
 * on the secret, then compare the digests with the runtime's timing-safe primitive.
 */
async function sameKey(presented: string, secret: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(presented)),
    crypto.subtle.digest("SHA-256", encoder.encode(secret)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
