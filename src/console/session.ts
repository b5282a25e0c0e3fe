/**
 * Operator sessions: a short-lived cookie signed with HMAC-SHA256 (Hono's signed cookies)
 * that names the tenant, role and key digest, never the key itself. HttpOnly keeps it from
 * scripts, Secure from plain HTTP (browsers treat loopback as secure), SameSite=Strict
 * from every cross-site request. Signing out records the session's id in the tenant's
 * TenantIndex, so a copy of the cookie is refused afterwards too.
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { TENANT_PATTERN } from "../core/keys.ts";

/** The cookie's name; scoped to the console's path. */
const COOKIE = "tf_console";

/** How long a session lasts; a revoked key's sessions end sooner, at their next request. */
export const SESSION_TTL_S = 30 * 60;

/** The shortest secret accepted: 256 bits as hex or base64 text. */
const MIN_SECRET_CHARS = 32;

/** Who a session acts as. */
export interface Session {
  /** Random id, so signing out can refuse copies of this one cookie. */
  id: string;
  /** The operator's tenant. */
  tenant: string;
  /** SHA-256 hex of the operator's stored key, or null for the local development key. */
  keyId: string | null;
  /** When the session ends (ms since the epoch). */
  expiresAt: number;
}

/** The secret sessions are signed with, or null when the deployment set none usable. */
export function sessionSecret(env: Env): string | null {
  const secret = env.CONSOLE_SECRET;
  return secret !== undefined && secret.length >= MIN_SECRET_CHARS ? secret : null;
}

const OPTIONS = {
  path: "/console",
  httpOnly: true,
  secure: true,
  sameSite: "Strict",
} as const;

/** Start a session: `tenant.keyId.expiresAt.id`, signed. */
export async function startSession(
  c: Context,
  secret: string,
  s: Pick<Session, "tenant" | "keyId">,
) {
  const expiresAt = Date.now() + SESSION_TTL_S * 1000;
  const id = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const value = `${s.tenant}.${s.keyId ?? "dev"}.${expiresAt}.${id}`;
  await setSignedCookie(c, COOKIE, value, secret, { ...OPTIONS, maxAge: SESSION_TTL_S });
}

/** End the session in this browser. */
export function endSession(c: Context): void {
  deleteCookie(c, COOKIE, OPTIONS);
}

/** The request's session, or null when it has none, a forged one, or an expired one. */
export async function readSession(c: Context, secret: string): Promise<Session | null> {
  const value = await getSignedCookie(c, secret, COOKIE);
  if (typeof value !== "string") return null;
  const [tenant = "", keyId = "", expires = "", id = ""] = value.split(".");
  const expiresAt = Number(expires);
  if (!TENANT_PATTERN.test(tenant) || !/^([0-9a-f]{64}|dev)$/.test(keyId)) return null;
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= Date.now()) return null;
  if (!/^[0-9a-f]{32}$/.test(id)) return null;
  return { id, tenant, keyId: keyId === "dev" ? null : keyId, expiresAt };
}
