/**
 * `/console/connect`, the authorization endpoint (and the console's grants page, whose
 * routes are mounted with it): the library validates the request (client,
 * redirect URI, PKCE S256, resource); the person signs in with the console's own sign-in,
 * then consents to a budget. The grant's limits are tightened against the tenant's like a run
 * override (never looser), its first run is opened with them, and the grant is completed with
 * them as its props, so every token of the grant carries them.
 *
 * The form is guarded twice: Hono's CSRF check refuses a POST from another origin, and the
 * library's consent handle works once, for ten minutes, in the browser that opened the page
 * (a `__Host-` binding cookie).
 */
import {
  AuthorizationError,
  type AuthRequest,
  CimdFetchError,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { operatorOf } from "../console/access.ts";
import { CSP, MAX_FORM_BYTES } from "../console/app.tsx";
import type { ConsoleEnv, Operator } from "../console/context.ts";
import { html } from "../console/layout.tsx";
import { oidcLink } from "../console/person-sign-in.tsx";
import { sha256Hex } from "../core/canonical.ts";
import { admissionOf } from "../core/people.ts";
import { type Fence, limitsFor } from "../core/policy.ts";
import { offeredTools } from "../execute/configured.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { ledgerOf } from "../ledger/address.ts";
import { signIn } from "./connect-sign-in.tsx";
import { ConnectError, ConnectSignIn, ConsentPage, type ConsentView } from "./consent-page.tsx";
import {
  type GrantLimits,
  type GrantProps,
  newGrantId,
  newUserId,
  overrideOf,
  runIdOf,
  writeRecord,
} from "./grant.ts";
import { grantableTools, limitsOfForm } from "./grant-limits.ts";
import { mountGrants } from "./grants-page.tsx";
import { AUTHORIZE_PATH, TOOLS_SCOPE } from "./provider.ts";

/** The console's grants page and its actions (grants-page.tsx). */
const GRANTS = "/console/grants/*";

/** Answer a request the library refused: to the client when it is safe, else on this page. */
function refusedRequest(e: unknown): Promise<Response> | Response {
  if (e instanceof AuthorizationError && e.redirectTo !== undefined) {
    return new Response(null, { status: 302, headers: { Location: e.redirectTo } });
  }
  if (e instanceof AuthorizationError) return html(<ConnectError text={e.description} />, 400);
  if (e instanceof CimdFetchError) {
    return html(<ConnectError text="This app's metadata document could not be verified." />, 400);
  }
  throw e;
}

/** Copy the library's headers (binding cookie, no framing) onto a rendered page. */
async function withHeaders(page: Promise<Response>, headers: Headers): Promise<Response> {
  const res = await page;
  for (const [name, value] of headers) res.headers.append(name, value);
  return res;
}

interface Consent {
  fence: Fence;
  env: Env;
  api: OAuthHelpers;
  operator: Operator;
  action: string;
}

async function showConsent(
  k: Consent,
  request: AuthRequest,
  handle: string,
  error: string | null,
): Promise<Response> {
  const details = await k.api.describeConsent(request);
  const base = limitsFor(k.fence, k.operator.tenant);
  // A tool whose upstream is not configured here is not offered to agents, nor granted.
  const contracts = grantableTools(k.fence, base).flatMap((t) => k.fence.tools.get(t) ?? []);
  const tools = offeredTools(contracts, k.env).tools.map((t) => t.name);
  const view: ConsentView = { details, handle, base, tools, error };
  const page = await html(
    <ConsentPage view={view} viewer={k.operator} action={k.action} />,
    error ? 422 : 200,
  );
  const target = new URL(details.redirectUri);
  // A private-use scheme (cursor://…) has no origin; CSP names it by its scheme.
  const client = target.origin === "null" ? target.protocol : target.origin;
  page.headers.set("Content-Security-Policy", cspFor([client]));
  return page;
}

/** The console's CSP as a header, letting forms also go (by redirect) to `formTargets`. */
function cspFor(formTargets: readonly string[]): string {
  const kebab = (name: string) => name.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
  return Object.entries({ ...CSP, formAction: [...CSP.formAction, ...formTargets] })
    .map(([name, values]) => `${kebab(name)} ${values.join(" ")}`)
    .join("; ");
}

/** The person allowed it: open the grant's first run and complete the authorization. */
async function grant(
  k: Consent,
  c: { env: Env; req: { raw: Request } },
  handle: string,
  limits: GrantLimits,
) {
  // The request's own scopes: the grant's are chosen from them below.
  const approved = await k.api.approveConsent(c.req.raw, handle);
  const { request } = approved;
  const client = await k.api.lookupClient(request.clientId);
  const id = newGrantId();
  const subject = await subjectOf(k.operator);
  const userId = newUserId();
  const approver = k.operator.principal;
  const local = isLocalDevelopment(c.req.raw.headers, c.req.raw.url);
  const runId = runIdOf(id, 0);
  const ref = { tenant: k.operator.tenant, runId, by: `grant:${id}`, local };
  const opened = await ledgerOf(c.env, ref).open(ref, overrideOf(limits), false);
  if (opened.kind === "refuse") throw new Error(`grant run refused: ${opened.refusal.detail}`);
  const props: GrantProps = {
    grant: id,
    tenant: k.operator.tenant,
    subject,
    ...(approver.kind === "fence" ? {} : { principal: approver }),
    ...(approver.kind === "person"
      ? { admission: admissionOf(k.fence.policy.operators, approver, k.operator.tenant) }
      : {}),
    client_id: request.clientId,
    limits,
  };
  const scope = request.scope.includes("offline_access")
    ? [TOOLS_SCOPE, "offline_access"]
    : [TOOLS_SCOPE];
  const { redirectTo } = await k.api.completeAuthorization({
    request,
    userId,
    metadata: { grant: id, tenant: k.operator.tenant },
    scope,
    props,
  });
  const now = Date.now();
  await writeRecord(c.env, {
    ...props,
    user_id: userId,
    client_name: client?.clientName ?? request.clientId,
    created_at: now,
    run: 0,
    run_opened_at: now,
  });
  approved.headers.set("Location", redirectTo);
  return new Response(null, { status: 302, headers: approved.headers });
}

/** Who consents, as the grant's props name them (never in a token: the props are encrypted). */
async function subjectOf(operator: Operator): Promise<string> {
  const p = operator.principal;
  if (p.kind !== "person") return operator.keyId ?? "development";
  return `p-${(await sha256Hex(`${p.iss} ${p.sub}`)).slice(0, 32)}`;
}

/** The authorization endpoint's routes, mounted before the console's own. */
export function buildConnect(fence: Fence): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  // The console's headers, but the CSP is set per page (cspFor): the consent form's answer
  // redirects to the client, and Chromium holds that redirect to form-action.
  app.use(AUTHORIZE_PATH, secureHeaders({ referrerPolicy: "same-origin" }));
  app.use(AUTHORIZE_PATH, async function pageCsp(c, next) {
    await next();
    if (!c.res.headers.has("Content-Security-Policy")) {
      c.res.headers.set("Content-Security-Policy", cspFor([]));
    }
  });
  app.use(AUTHORIZE_PATH, csrf(), bodyLimit({ maxSize: MAX_FORM_BYTES }));

  app.use(GRANTS, secureHeaders({ contentSecurityPolicy: CSP, referrerPolicy: "same-origin" }));
  app.use(GRANTS, csrf(), bodyLimit({ maxSize: MAX_FORM_BYTES }));
  app.use(GRANTS, async function requireOperator(c, next) {
    const operator = await operatorOf(c, fence);
    if (operator === null) {
      if (c.req.method === "GET") return c.redirect("/console", 303);
      return html(<ConnectError text="Your session has ended; sign in again." />, 401);
    }
    c.set("operator", operator);
    await next();
  });
  mountGrants(app, fence);

  app.get(AUTHORIZE_PATH, async (c) => {
    const api = c.env.OAUTH_PROVIDER;
    if (api === undefined) return html(<ConnectError text={NOT_SERVED} />, 404);
    const action = `${AUTHORIZE_PATH}${new URL(c.req.url).search}`;
    try {
      const request = await api.parseAuthRequest(c.req.raw);
      const operator = await operatorOf(c, fence);
      if (operator === null) {
        return html(<ConnectSignIn action={action} error={null} oidc={oidcLink(c.env, action)} />);
      }
      await api.describeConsent(request);
      const consent = await api.beginConsent(request);
      const k = { fence, env: c.env, api, operator, action };
      return withHeaders(showConsent(k, request, consent.handle, null), consent.headers);
    } catch (e) {
      return refusedRequest(e);
    }
  });

  app.post(AUTHORIZE_PATH, async (c) => {
    const api = c.env.OAUTH_PROVIDER;
    if (api === undefined) return html(<ConnectError text={NOT_SERVED} />, 404);
    const action = `${AUTHORIZE_PATH}${new URL(c.req.url).search}`;
    const form = await c.req.parseBody({ all: true });
    if (typeof form.key === "string") return signIn(c, form.key.trim(), action);
    const operator = await operatorOf(c, fence);
    if (operator === null) {
      return html(
        <ConnectSignIn action={action} error="Your session has ended; sign in again." />,
        401,
      );
    }
    const handle = typeof form.handle === "string" ? form.handle : "";
    try {
      if (form.decision !== "approve") {
        const denied = await api.denyConsent(c.req.raw, handle);
        return new Response(null, { status: 302, headers: denied.headers });
      }
      const k = { fence, env: c.env, api, operator, action };
      const limits = limitsOfForm(fence, limitsFor(fence, operator.tenant), form);
      if (!limits.ok) {
        const request = await api.parseAuthRequest(new Request(new URL(action, c.req.url)));
        return showConsent(k, request, handle, limits.error);
      }
      return await grant(k, c, handle, limits.limits);
    } catch (e) {
      return refusedRequest(e);
    }
  });
  app.onError((e) => {
    // Hono's CSRF check and body limit refuse by throwing an HTTPException with the status.
    if (e instanceof HTTPException && e.status >= 400 && e.status < 500) {
      return html(<ConnectError text={REFUSED} />, e.status);
    }
    throw e;
  });
  return app;
}

const REFUSED =
  "The request was refused: the form must come from this page, on this fence's own origin.";

const NOT_SERVED =
  "This fence does not serve OAuth here: its operator has to set PUBLIC_URL to its public origin.";
