/**
 * Signing in on the consent page: the console's own session and key checks (an operator key
 * of the tenant, the development key only under local development), so a person connecting
 * an app is who the console would let in.
 */
import { sessionOperator } from "../console/access.ts";
import { tenantRuns } from "../console/attention.ts";
import type { Operator } from "../console/context.ts";
import { html } from "../console/layout.tsx";
import { accessOperator } from "../console/person-sign-in.tsx";
import { readSession, startSession } from "../console/session.ts";
import { BEARER_TOKEN, consoleSecret, roleAllows } from "../core/keys.ts";
import type { Fence } from "../core/policy.ts";
import { principalOfKey, signInFailuresExceeded } from "../http/auth.ts";
import { ConnectError, ConnectSignIn } from "./consent-page.tsx";

type ConsoleContext = Parameters<typeof sessionOperator>[0];

/** The signed-in operator (by a session, or by a Cloudflare Access token), or null. */
export async function operatorOf(c: ConsoleContext, fence: Fence): Promise<Operator | null> {
  const secret = consoleSecret(c.env);
  const session = secret === null ? null : await readSession(c, secret);
  const operator = session === null ? null : await sessionOperator(c, session);
  const access = operator === null ? await accessOperator(c, fence) : null;
  const found = operator ?? (access?.ok ? access.value : null);
  return found === null ? null : { ...found, runs: tenantRuns(c.env, found.tenant) };
}

/** Sign in with `key` and go back to the authorization request `action`. */
export async function signIn(c: ConsoleContext, key: string, action: string) {
  const secret = consoleSecret(c.env);
  if (secret === null) return html(<ConnectError text={NO_SESSIONS} />, 503);
  const refused = async (error: string, status: number) => {
    if (await signInFailuresExceeded(c.env, c.req.raw)) {
      return html(
        <ConnectSignIn action={action} error="Too many failed sign-ins; wait a minute." />,
        429,
      );
    }
    return html(<ConnectSignIn action={action} error={error} />, status);
  };
  if (!BEARER_TOKEN.test(key)) return refused("That is not a toolfence key.", 401);
  const found = await principalOfKey(c.env, key, c.req.raw);
  if (!found.ok) return refused(found.error.detail, 401);
  if (!roleAllows(found.value.role, "operator")) {
    return refused("This is an agent key; connecting an app needs an operator key.", 403);
  }
  await startSession(c, secret, { tenant: found.value.tenant, keyId: found.value.keyId });
  return c.redirect(action, 303);
}

const NO_SESSIONS =
  "Sign-in is not configured: set the CONSOLE_SECRET secret (32 characters or more).";
