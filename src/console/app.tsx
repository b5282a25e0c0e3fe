/**
 * The operator console at `/console`: its guards (a strict CSP, Hono's CSRF check, a body
 * limit, the session), signing in and out, its two static files, and the page routes.
 * Every read and action goes through the same ledger methods the API's routes call, and
 * signing in uses the API's own key checks (src/http/auth.ts), so the two never disagree.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { BEARER_TOKEN, consoleSecret, roleAllows } from "../core/keys.ts";
import type { Fence } from "../core/policy.ts";
import { principalOfKey, signInFailuresExceeded } from "../http/auth.ts";
import { sessionOperator, signOut } from "./access.ts";
import { tenantRuns } from "./attention.ts";
import { mountConnections } from "./connections-page.tsx";
import type { ConsoleEnv } from "./context.ts";
import { html, Notice, Page, SignInPanel } from "./layout.tsx";
import { accessOperator, mountOidc, oidcLink } from "./person-sign-in.tsx";
import { mountPins } from "./pin-page.tsx";
import { mountRuns } from "./run-routes.tsx";
import { mountRunList } from "./runs-page.tsx";
import { CONSOLE_JS } from "./script.ts";
import { endSession, readSession, startSession } from "./session.ts";
import { CONSOLE_CSS } from "./style.ts";
import { mountTools } from "./tools-page.tsx";
import { mountUpstreamConnect } from "./upstream-connect.tsx";

/** Largest form the console accepts: a key, a reason, a few limits. */
export const MAX_FORM_BYTES = 16 * 1024;

/** Static files may be cached briefly; they change only with a deploy. */
const ASSET_CACHE = "public, max-age=300";

/**
 * Scripts, styles and requests only from the fence's own origin, no inline code, no
 * framing, forms posting only back to it: nothing is ever loaded from a CDN.
 */
export const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/**
 * A console page to return to after signing in, from `?next=`: a plain path under
 * `/console/` (no query, no `//`, no backslash), so signing in never sends anyone elsewhere.
 */
export function returnPath(value: string | undefined): string | null {
  if (value === undefined || value.length > 300) return null;
  // The characters of run and approval ids; no percent-encoding, and no dot segments, so the
  // path a browser goes to is the path checked here.
  if (!/^\/console\/(?:[A-Za-z0-9._~:-]+\/?)*$/.test(value)) return null;
  return value.split("/").some((s) => s === "." || s === "..") ? null : value;
}

function SignIn(props: { error: string | null; idp?: string | undefined; next?: string | null }) {
  const next = props.next ?? null;
  return (
    <SignInPanel
      title="Sign in"
      heading="Sign in"
      error={props.error}
      idpHref={props.idp ?? null}
      action={
        next === null ? "/console/sign-in" : `/console/sign-in?next=${encodeURIComponent(next)}`
      }
      hint="An operator key of your tenant; agent keys cannot sign in."
    />
  );
}

/** The console's routes, mounted by the worker at `/console`. */
export function buildConsole(fence: Fence): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>().basePath("/console");
  app.use(secureHeaders({ contentSecurityPolicy: CSP, referrerPolicy: "same-origin" }));
  app.use(csrf(), bodyLimit({ maxSize: MAX_FORM_BYTES }));

  app.get("/assets/console.css", (c) =>
    c.body(CONSOLE_CSS, 200, { "Content-Type": "text/css", "Cache-Control": ASSET_CACHE }),
  );
  app.get("/assets/console.js", (c) =>
    c.body(CONSOLE_JS, 200, { "Content-Type": "text/javascript", "Cache-Control": ASSET_CACHE }),
  );

  app.get("/", async (c) => {
    const secret = consoleSecret(c.env);
    if (secret === null) return html(<SignIn error={NOT_CONFIGURED} />, 503);
    const next = returnPath(c.req.query("next"));
    if ((await readSession(c, secret)) !== null) return c.redirect(next ?? "/console/runs", 303);
    // Through the provider too, the sign-in comes back to the page asked for.
    const idp = oidcLink(c.env, next ?? "/console/runs");
    return html(<SignIn error={null} idp={idp} next={next} />);
  });

  app.post("/sign-in", async function signIn(c) {
    const secret = consoleSecret(c.env);
    if (secret === null) return html(<SignIn error={NOT_CONFIGURED} />, 503);
    const form = await c.req.parseBody();
    const key = typeof form.key === "string" ? form.key.trim() : "";
    const next = returnPath(c.req.query("next"));
    const refused = async (error: string, status: number) => {
      if (await signInFailuresExceeded(c.env, c.req.raw)) {
        return html(<SignIn error="Too many failed sign-ins; wait a minute." next={next} />, 429);
      }
      return html(<SignIn error={error} next={next} />, status);
    };
    if (!BEARER_TOKEN.test(key)) return refused("That is not a toolfence key.", 401);
    const found = await principalOfKey(c.env, key, c.req.raw);
    if (!found.ok) return refused(found.error.detail, 401);
    if (!roleAllows(found.value.role, "operator")) {
      return refused("This is an agent key; the console needs an operator key.", 403);
    }
    await startSession(c, secret, { tenant: found.value.tenant, keyId: found.value.keyId });
    return c.redirect(next ?? "/console/runs", 303);
  });

  app.post("/sign-out", async (c) => {
    const secret = consoleSecret(c.env);
    const session = secret === null ? null : await readSession(c, secret);
    if (session !== null) await signOut(c.env, session);
    endSession(c);
    return c.redirect("/console", 303);
  });

  mountOidc(app, fence);
  // A refused call's connect link: its own check of who is signed in (upstream-connect.tsx).
  mountUpstreamConnect(app, fence);

  app.use(async function requireOperator(c, next) {
    const secret = consoleSecret(c.env);
    const session = secret === null ? null : await readSession(c, secret);
    const operator = session === null ? null : await sessionOperator(c, session);
    if (operator !== null) {
      c.set("operator", { ...operator, runs: tenantRuns(c.env, operator.tenant) });
      return next();
    }
    if (session !== null) endSession(c);
    // Behind Cloudflare Access, every request carries the person's signed token.
    const access = await accessOperator(c, fence);
    if (access?.ok) {
      c.set("operator", { ...access.value, runs: tenantRuns(c.env, access.value.tenant) });
      return next();
    }
    if (access !== null) return html(<SignIn error={access.error} />, 403);
    if (c.req.method === "GET") {
      // Back to the page asked for once signed in (a link to an approval, say).
      const next = returnPath(c.req.path);
      return c.redirect(
        next === null ? "/console" : `/console?next=${encodeURIComponent(next)}`,
        303,
      );
    }
    return html(<SignIn error="Your session has ended; sign in again." />, 401);
  });

  mountRunList(app);
  mountRuns(app, fence);
  mountTools(app, fence);
  mountPins(app, fence, () => html(<Missing />, 404));
  mountConnections(app);
  // Last: any other console path, for a signed-in operator, is an HTML 404.
  app.all("*", () => html(<Missing />, 404));
  app.onError((e) => {
    // Hono's CSRF check and body limit refuse by throwing an HTTPException; its status is
    // the answer.
    const status = refusedStatus(e);
    if (status !== null) {
      return html(
        <Page title="Refused" viewer={null}>
          {REFUSED}
        </Page>,
        status,
      );
    }
    console.error("console", e);
    return html(
      <Page title="Error" viewer={null}>
        {FAILED}
      </Page>,
      500,
    );
  });
  return app;
}

const NOT_CONFIGURED =
  "The console is not configured: set the CONSOLE_SECRET secret (32 characters or more).";

function refusedStatus(e: unknown): number | null {
  if (!(e instanceof HTTPException)) return null;
  return typeof e.status === "number" && e.status >= 400 && e.status < 500 ? e.status : null;
}

const REFUSED = (
  <Notice kind="error">
    The request was refused: forms must come from this console's own pages and stay small.
  </Notice>
);

const FAILED = <Notice kind="error">The console failed; nothing was changed.</Notice>;

function Missing() {
  return (
    <Page title="Not found" viewer={null}>
      <Notice kind="error">
        No such page. <a href="/console/runs">Back to the runs</a>
      </Notice>
    </Page>
  );
}
