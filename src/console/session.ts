/**
 * Operator sessions: a short-lived cookie signed with HMAC-SHA256 (Hono's signed cookies)
 * that names the tenant and the key digest (never the key itself), or the person an identity
 * provider signed in. HttpOnly keeps it from
 * scripts, Secure from plain HTTP (browsers treat loopback as secure), SameSite=Strict
 * from every cross-site request. Signing out records the session's id in the tenant's
 * TenantIndex, so a copy of the cookie is refused afterwards too.
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { fromBase64Url, toBase64Url } from "../core/base64url.ts";
import { TENANT_PATTERN } from "../core/keys.ts";
import { MAX_PERSON_FIELD, type Person } from "../core/people.ts";

/** The cookie's name; scoped to the console's path. */
const COOKIE = "tf_console";

/** How long a session lasts; a revoked key's sessions end sooner, at their next request. */
export const SESSION_TTL_S = 30 * 60;

/** Who a session acts as. */
export interface Session {
  /** Random id, so signing out can refuse copies of this one cookie. */
  id: string;
  /** The operator's tenant. */
  tenant: string;
  /** SHA-256 hex of the operator's stored key, or null for the local development key. */
  keyId: string | null;
  /** The person an identity provider signed in (then `keyId` is null), or null for a key. */
  person: Person | null;
  /** When the session ends (ms since the epoch). */
  expiresAt: number;
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
  s: Pick<Session, "tenant" | "keyId"> & { person?: Person | null },
) {
  const expiresAt = Date.now() + SESSION_TTL_S * 1000;
  const id = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const who = s.person
    ? `p${toBase64Url(new TextEncoder().encode(JSON.stringify(s.person)))}`
    : (s.keyId ?? "dev");
  const value = `${s.tenant}.${who}.${expiresAt}.${id}`;
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
  const [tenant = "", who = "", expires = "", id = ""] = value.split(".");
  const expiresAt = Number(expires);
  const person = who.startsWith("p") ? personOf(who.slice(1)) : null;
  if (!TENANT_PATTERN.test(tenant)) return null;
  if (person === null && !/^([0-9a-f]{64}|dev)$/.test(who)) return null;
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= Date.now()) return null;
  if (!/^[0-9a-f]{32}$/.test(id)) return null;
  const keyId = person !== null || who === "dev" ? null : who;
  return { id, tenant, keyId, person, expiresAt };
}

/** The person a signed cookie names (its signature was checked): base64url of their JSON. */
function personOf(encoded: string): Person | null {
  const bytes = encoded.length <= 2048 ? fromBase64Url(encoded) : null;
  if (bytes === null) return null;
  try {
    const p = JSON.parse(new TextDecoder().decode(bytes)) as Partial<Person>;
    const field = (x: unknown) => typeof x === "string" && x.length <= MAX_PERSON_FIELD;
    const optional = (x: unknown) => x === null || field(x);
    if (!field(p.iss) || !field(p.sub) || !optional(p.email) || !optional(p.name)) return null;
    if (p.email_verified !== undefined && typeof p.email_verified !== "boolean") return null;
    return p as Person;
  } catch {
    return null;
  }
}
