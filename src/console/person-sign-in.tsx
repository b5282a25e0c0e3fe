/**
 * People signing in to the console and the consent page through an identity provider: the
 * OpenID Connect round trip (`/console/oidc/start`, `/console/oidc/callback`: oidc.ts), and
 * Cloudflare Access's signed header (cf-access.ts). Either way the provider vouches for who
 * the person is, and the policy's `operators` section decides whether they operate and for
 * which tenant (src/core/people.ts); then they get the same session a key's sign-in starts.
 */
import type { Context, Hono } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { consoleSecret } from "../core/keys.ts";
import { type Claims, operatorTenant, type Person, personOf } from "../core/people.ts";
import type { Fence } from "../core/policy.ts";
import { personPrincipal } from "../core/principal.ts";
import { err, ok, type Result } from "../core/result.ts";
import { accessClaims, accessConfig } from "./cf-access.ts";
import type { ConsoleEnv, Operator } from "./context.ts";
import { html, Notice, Page } from "./layout.tsx";
import { type Attempt, authorizationUrl, newAttempt, oidcConfig, redeemCode } from "./oidc.ts";
import { startSession } from "./session.ts";

/** Where the provider sends the browser back. */
export const CALLBACK_PATH = "/console/oidc/callback";
/** Where a sign-in through the provider starts (`?return=` the console page to come back to). */
export const START_PATH = "/console/oidc/start";

/** The cookie that holds a sign-in attempt while the browser is at the provider. */
const ATTEMPT_COOKIE = "tf_oidc";
/** How long a person may take at the provider. */
const ATTEMPT_TTL_S = 600;
/**
 * Lax, not Strict: the provider's redirect back is a cross-site navigation, on which a Strict
 * cookie is not sent (RFC 6265bis §5.6.7.1). The cookie only binds the answer to this browser.
 */
const ATTEMPT_OPTIONS = {
  path: "/console/oidc",
  httpOnly: true,
  secure: true,
  sameSite: "Lax",
} as const;

/** The console page a sign-in comes back to: a path of the console, never another origin. */
function returnPath(value: string | undefined): string {
  return value !== undefined && /^\/console\/[^/\\]/.test(value) ? value : "/console/runs";
}

/** The callback URL the provider is told: on the fence's public origin, or this request's. */
function callbackUrl(c: Context<ConsoleEnv>): string {
  const pub = c.env.PUBLIC_URL;
  const origin = pub !== undefined && pub !== "" ? new URL(pub).origin : new URL(c.req.url).origin;
  return `${origin}${CALLBACK_PATH}`;
}

/** Whether a provider is configured, so the sign-in pages offer it. */
export function oidcOffered(env: Env): boolean {
  return oidcConfig(env) !== null;
}

/** The link that signs in through the provider and comes back to `path`, when one is set. */
export function oidcLink(env: Env, path: string): string | undefined {
  return oidcOffered(env) ? `${START_PATH}?return=${encodeURIComponent(path)}` : undefined;
}

/** The operator the person `claims` name is, when the policy makes them one; else why not. */
function personOperator(
  fence: Fence,
  claims: Claims,
): Result<Operator & { person: Person }, string> {
  const person = personOf(claims);
  if (person === null) return err("The identity provider named no usable subject.");
  const tenant = operatorTenant(fence.policy.operators, person, claims);
  if (!tenant.ok) return tenant;
  return ok({ tenant: tenant.value, keyId: null, principal: personPrincipal(person), person });
}

function Refused(props: { text: string }) {
  return (
    <Page title="Sign-in refused" viewer={null}>
      <Notice kind="error">{props.text}</Notice>
      <p>
        <a href="/console">Back to sign-in</a>
      </p>
    </Page>
  );
}

/** Go on to `target` from a page of this origin, so the new Strict session cookie is sent. */
function Onward(props: { target: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content={`0;url=${props.target}`} />
        <title>Signed in · toolfence console</title>
      </head>
      <body>
        <p>
          Signed in. <a href={props.target}>Continue</a>
        </p>
      </body>
    </html>
  );
}

/** The OIDC round trip's two routes, on the console's app (base path `/console`). */
export function mountOidc(app: Hono<ConsoleEnv>, fence: Fence): void {
  app.get("/oidc/start", async (c) => {
    const config = oidcConfig(c.env);
    const secret = consoleSecret(c.env);
    if (config === null || secret === null) {
      return html(<Refused text="No identity provider is configured." />, 404);
    }
    const attempt = newAttempt();
    const target = returnPath(c.req.query("return"));
    const url = await authorizationUrl(config, attempt, callbackUrl(c));
    if (!url.ok) return html(<Refused text={url.error} />, 502);
    const value = [attempt.state, attempt.nonce, attempt.verifier, encodeURIComponent(target)];
    await setSignedCookie(c, ATTEMPT_COOKIE, value.join("."), secret, {
      ...ATTEMPT_OPTIONS,
      maxAge: ATTEMPT_TTL_S,
    });
    return c.redirect(url.value, 302);
  });

  app.get("/oidc/callback", async (c) => {
    const config = oidcConfig(c.env);
    const secret = consoleSecret(c.env);
    if (config === null || secret === null) {
      return html(<Refused text="No identity provider is configured." />, 404);
    }
    const stored = await getSignedCookie(c, secret, ATTEMPT_COOKIE);
    deleteCookie(c, ATTEMPT_COOKIE, ATTEMPT_OPTIONS);
    // The return path comes last and may hold dots; the three random values hold none.
    const [state, nonce, verifier, ...rest] = typeof stored === "string" ? stored.split(".") : [];
    const target = rest.join(".");
    if (!state || !nonce || !verifier || target === "") {
      return html(
        <Refused text="This sign-in was not started in this browser, or took too long." />,
        400,
      );
    }
    // RFC 6749 §4.1.2.1: the provider's refusal comes back as `error`.
    const error = c.req.query("error");
    if (error !== undefined)
      return html(<Refused text={`The identity provider refused: ${error}.`} />, 403);
    if (c.req.query("state") !== state) {
      return html(<Refused text="The answer is not for this sign-in (state)." />, 400);
    }
    const code = c.req.query("code") ?? "";
    if (code === "") return html(<Refused text="The identity provider sent no code." />, 400);
    const attempt: Attempt = { state, nonce, verifier };
    const claims = await redeemCode(config, attempt, code, callbackUrl(c));
    if (!claims.ok) return html(<Refused text={claims.error} />, 401);
    const signed = personOperator(fence, claims.value);
    if (!signed.ok) return html(<Refused text={signed.error} />, 403);
    await startSession(c, secret, {
      tenant: signed.value.tenant,
      keyId: null,
      person: signed.value.person,
    });
    // c's own answer: it carries the session cookie startSession set.
    const page = await (<Onward target={returnPath(decodeURIComponent(target))} />);
    c.header("Cache-Control", "no-store");
    return c.html(`<!doctype html>${page}`);
  });
}

/**
 * The operator a request signed by Cloudflare Access names, or null when it carries no valid
 * Access token; a person the policy does not make an operator is refused with why. Access signs
 * every request it lets through, so each is checked on its own and no session is started.
 */
export async function accessOperator(
  c: Context<ConsoleEnv>,
  fence: Fence,
): Promise<Result<Operator, string> | null> {
  if (accessConfig(c.env) === null) return null;
  const claims = await accessClaims(c.env, c.req.raw);
  if (!claims.ok) return null;
  return personOperator(fence, claims.value);
}
