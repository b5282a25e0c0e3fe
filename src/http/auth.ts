/**
 * Authentication and roles: the bearer key to a principal (tenant, role, tools), the
 * development key under local development only, and failed authentications limited per address.
 */
import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../core/canonical.ts";
import { parseStrictJson } from "../core/json.ts";
import { BEARER_TOKEN, parseKeyRecord, type Role, recordName, roleAllows } from "../core/keys.ts";
import { refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { AppEnv, Principal } from "./context.ts";
import { RATE_LIMIT_PERIOD_S } from "./limits.ts";
import { isDeployedRequest, isLocalDevelopment } from "./local-dev.ts";
import { problem } from "./problem.ts";

/** Who the development key acts as: the tenant and role the local demo and tests use. */
const DEVELOPMENT: Principal = {
  tenant: "default",
  role: "operator",
  tools: null,
  keyId: null,
  audited: { kind: "key", key_id: null, label: "development" },
};

/** RFC 6750 §3: the challenge sent with every 401. */
const CHALLENGE = 'Bearer realm="toolfence"';

/** Why a request carries no usable credentials, and the RFC 6750 §3.1 error code, if any. */
export interface AuthFailure {
  /** What to tell the caller. */
  detail: string;
  /** `invalid_request` for a malformed header, `invalid_token` for an unknown key. */
  error: "invalid_request" | "invalid_token" | null;
  /** Whether the development key was presented where it is not honoured. */
  devKey?: boolean;
}

/**
 * Establish the principal from `Authorization: Bearer <key>` (RFC 6750 §2.1). Every failure
 * is a 401 `unauthenticated`, malformed headers included (RFC 6750 §3.1 would allow 400):
 * one answer for every credential problem tells an agent one thing, to fix its key.
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
    c.set("local", local);
    const deployed = isDeployedRequest(c.req.raw.headers);
    if (c.env.DEV_KEY !== undefined && deployed) warnDeployedDevKey(false);
    const found = await principalOf(c.env, c.req.header("Authorization") ?? null, local);
    if (!found.ok && found.error.devKey && deployed) warnDeployedDevKey(true);
    if (!found.ok) {
      if (await failuresExceeded(c.env, c.req.header("CF-Connecting-IP") ?? null)) {
        return problem(
          refuse(
            "rate_limited",
            `Too many failed authentications from this address; retry after ${RATE_LIMIT_PERIOD_S} s.`,
          ),
          {},
          { "Retry-After": String(RATE_LIMIT_PERIOD_S) },
        );
      }
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

let warned = false;

/**
 * Said on the worker's log once per isolate, and every time the key is presented: a deployed
 * worker must never have DEV_KEY.
 */
function warnDeployedDevKey(presented: boolean): void {
  if (warned && !presented) return;
  warned = true;
  console.error(
    "DEV_KEY is set on a deployed worker: the development key is refused here; remove it (wrangler secret delete DEV_KEY).",
  );
}

/**
 * Count a failed authentication against the client's address (`CF-Connecting-IP`, which the
 * platform sets) and say whether the address is over its limit. A flood of unknown keys is
 * limited like a known key's, by its own binding.
 */
async function failuresExceeded(env: Env, address: string | null): Promise<boolean> {
  const outcome = await env.AUTH_FAILURE_LIMITER.limit({ key: `ip:${address ?? "unknown"}` });
  return !outcome.success;
}

async function principalOf(
  env: Env,
  header: string | null,
  local: boolean,
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
  return keyPrincipal(env, token, local);
}

/** The principal a well-formed key acts as, by its digest or as the development key. */
async function keyPrincipal(
  env: Env,
  token: string,
  local: boolean,
): Promise<Result<Principal, AuthFailure>> {
  if (env.DEV_KEY !== undefined && sameKey(token, env.DEV_KEY)) {
    if (local) return ok(DEVELOPMENT);
    return err({
      detail:
        "The development key is honoured only under local development (see docs/security.md).",
      error: "invalid_token",
      devKey: true,
    });
  }
  return digestPrincipal(env, await sha256Hex(token), local);
}

/**
 * The principal of the stored key with SHA-256 hex `digest` (null: the development key,
 * honoured only when `local`), as of now.
 */
export async function digestPrincipal(
  env: Env,
  digest: string | null,
  local: boolean,
): Promise<Result<Principal, AuthFailure>> {
  if (digest === null) {
    return local
      ? ok(DEVELOPMENT)
      : err({ detail: "The key is not known.", error: "invalid_token" });
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
  const { tenant, role, tools, label } = record.value;
  const audited = { kind: "key" as const, key_id: digest, label };
  return ok({ tenant, role, tools: tools ?? null, keyId: digest, audited });
}

/** The console's sign-in: the principal a presented key acts as, by the API's own rules. */
export function principalOfKey(env: Env, key: string, request: Request) {
  return keyPrincipal(env, key, isLocalDevelopment(request.headers, request.url));
}

/**
 * The principal of a console session's key as of now (null: the development key): checked on
 * every console request, so a revoked key's sessions end at once.
 */
export function principalOfDigest(env: Env, digest: string | null, request: Request) {
  return digestPrincipal(env, digest, isLocalDevelopment(request.headers, request.url));
}

/** Count a failed console sign-in like a failed API authentication; true when over the limit. */
export function signInFailuresExceeded(env: Env, request: Request): Promise<boolean> {
  return failuresExceeded(env, request.headers.get("CF-Connecting-IP"));
}

/**
 * Compare a presented key with the development key in constant time for keys of its length.
 * Only the development key is compared so (stored keys are looked up by digest), and it is
 * honoured on a loopback host only, so its length is no secret worth a hash per request.
 */
function sameKey(presented: string, secret: string): boolean {
  if (encodedSecret?.secret !== secret) encodedSecret = { secret, bytes: UTF8.encode(secret) };
  const a = UTF8.encode(presented);
  const b = encodedSecret.bytes;
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}

const UTF8 = new TextEncoder();

/** The development key's bytes, encoded once per isolate (and again if the key changes). */
let encodedSecret: { secret: string; bytes: Uint8Array } | null = null;
