/**
 * Signing in on the consent page: the console's own session and key checks (an operator key
 * of the tenant, the development key only under local development), so a person connecting
 * an app is who the console would let in.
 */
import type { sessionOperator } from "../console/access.ts";
import { html } from "../console/layout.tsx";
import { startSession } from "../console/session.ts";
import { BEARER_TOKEN, consoleSecret, roleAllows } from "../core/keys.ts";
import { principalOfKey, signInFailuresExceeded } from "../http/auth.ts";
import { ConnectError, ConnectSignIn } from "./consent-page.tsx";

type ConsoleContext = Parameters<typeof sessionOperator>[0];

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
