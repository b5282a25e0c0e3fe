/**
 * Whether a console session still acts for its operator, checked on every request: the key
 * is still an operator key of the same tenant (so revoking it ends its sessions at once, and
 * the development key's only under local development, by the API's own checks), and the
 * session was not signed out. A person's session was checked against the policy's operators
 * when the identity provider signed them in, and lasts its thirty minutes unless signed out.
 * And which run a route names: always one of the operator's tenant.
 */

import type { Context } from "hono";
import { consoleSecret, roleAllows } from "../core/keys.ts";
import type { Fence } from "../core/policy.ts";
import { personPrincipal } from "../core/principal.ts";
import { principalOfDigest } from "../http/auth.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { RUN_ID, tenantIndexOf } from "../ledger/address.ts";
import type { RunRef } from "../ledger/protocol.ts";
import { tenantRuns } from "./attention.ts";
import type { ConsoleContext, ConsoleEnv, Operator } from "./context.ts";
import { accessOperator } from "./person-sign-in.tsx";
import { readSession, type Session } from "./session.ts";

/** The operator `session` still acts as, or null. */
export async function sessionOperator(
  c: Context<ConsoleEnv>,
  session: Session,
): Promise<Operator | null> {
  const signedOut = tenantIndexOf(c.env, session.tenant).signedOut(session.id);
  if (session.person !== null) {
    if (await signedOut) return null;
    return { tenant: session.tenant, keyId: null, principal: personPrincipal(session.person) };
  }
  const [principal, out] = await Promise.all([
    principalOfDigest(c.env, session.keyId, c.req.raw),
    signedOut,
  ]);
  const acts =
    principal.ok &&
    !out &&
    principal.value.tenant === session.tenant &&
    roleAllows(principal.value.role, "operator");
  if (!acts) return null;
  return { tenant: session.tenant, keyId: session.keyId, principal: principal.value.audited };
}

/**
 * The signed-in operator of a page outside the console's guard (the consent page, the connect
 * page): by a session, or by a Cloudflare Access token; null when nobody is signed in.
 */
export async function operatorOf(c: Context<ConsoleEnv>, fence: Fence): Promise<Operator | null> {
  const secret = consoleSecret(c.env);
  const session = secret === null ? null : await readSession(c, secret);
  const operator = session === null ? null : await sessionOperator(c, session);
  const access = operator === null ? await accessOperator(c, fence) : null;
  const found = operator ?? (access?.ok ? access.value : null);
  return found === null ? null : { ...found, runs: tenantRuns(c.env, found.tenant) };
}

/** The `actor` an operator's act is recorded with: the key's digest, or the person's name. */
export function actorOf(operator: Operator): string {
  if (operator.keyId !== null) return operator.keyId;
  const p = operator.principal;
  return p.kind === "person" ? (p.email ?? p.sub) : "development";
}

/** Sign the session out: refused from now on, even as a copy of the cookie. */
export async function signOut(env: Env, session: Session): Promise<void> {
  await tenantIndexOf(env, session.tenant).signOut(session.id, session.expiresAt);
}

/** The run a console route names, always of the operator's own tenant; null for a bad id. */
export function runRefOf(c: ConsoleContext): RunRef | null {
  const runId = c.req.param("run_id") ?? "";
  if (!RUN_ID.test(runId)) return null;
  const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
  const { tenant, principal } = c.get("operator");
  return { tenant, runId, local, principal };
}
