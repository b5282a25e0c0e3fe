/**
 * Connecting an upstream as oneself: the page a refused call's `connect_url` opens, and the
 * callback the upstream's authorization server sends the person back to. Whoever continues
 * must be the principal who made the call: a console session of that key or person, or, for a
 * key, the key itself typed into the page (an agent key cannot sign in to the console, and no
 * session is started). The page's form is the console's (CSRF-checked, no inline script); the
 * link works once and for ten minutes (connect-link.ts); the flow is bound to this browser by a
 * signed cookie holding its `state`, and the callback checks `state`, then the SDK checks `iss`
 * (RFC 9207) and redeems the code with the flow's PKCE verifier (src/connections/).
 */
import type { Context, Hono } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { fenceOrigin } from "../connections/client-document.ts";
import { CONNECT_PATH, type ConnectLink, openLink } from "../connections/connect-link.ts";
import { connectionsOf, takeFlow } from "../connections/objects.ts";
import { FLOW_TTL_MS } from "../connections/PrincipalConnections.ts";
import { toBase64Url } from "../core/base64url.ts";
import { type ConnectionOwner, ownerIdOf, ownerName, ownerOf } from "../core/connection-owner.ts";
import { BEARER_TOKEN, consoleSecret } from "../core/keys.ts";
import type { Fence } from "../core/policy.ts";
import { principalOfKey, signInFailuresExceeded } from "../http/auth.ts";
import { isLocalDevelopment } from "../http/local-dev.ts";
import { operatorOf } from "./access.ts";
import type { ConsoleEnv } from "./context.ts";
import { html, Notice, Page } from "./layout.tsx";
import { oidcLink } from "./person-sign-in.tsx";

/** The cookie binding a flow to the browser that started it. */
const FLOW_COOKIE = "tf_upstream";

/**
 * Lax, not Strict: the authorization server's redirect back is a cross-site navigation, on
 * which a Strict cookie is not sent (RFC 6265bis §5.6.7.1). It only binds the answer to this
 * browser; it grants nothing.
 */
const FLOW_OPTIONS = {
  path: "/console/connections",
  httpOnly: true,
  secure: true,
  sameSite: "Lax",
} as const;

type ConsoleContext = Context<ConsoleEnv>;

/** The host a page names an upstream by. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

function Refused(props: { title: string; text: string }) {
  return (
    <Page title={props.title} viewer={null}>
      <div class="signin panel">
        <h1>{props.title}</h1>
        <Notice kind="error">{props.text}</Notice>
      </div>
    </Page>
  );
}

/** What the page says the connection is, and who it is for. */
function About(props: { link: ConnectLink }) {
  const { link } = props;
  const host = hostOf(link.upstream);
  return (
    <>
      <h1>Connect {host}</h1>
      <p>
        The agent called <code>{link.tool}</code>, which the fence calls at <strong>{host}</strong>{" "}
        as the person who makes the call: here, <strong>{ownerName(link.owner)}</strong> of tenant{" "}
        <code>{link.tenant}</code>.
      </p>
      <p class="muted">
        {host} will ask you to sign in and allow toolfence. The fence then keeps your tokens,
        encrypted, sends them to {host} on your calls only, and never shows them to the agent.
        Delete the connection at any time under Connections in the console.
      </p>
    </>
  );
}

/** The connect page, for a link that opened. */
function ConnectPage(props: {
  link: ConnectLink;
  text: string;
  signedIn: boolean;
  signedInAs: string | null;
  idp: string | undefined;
  error: string | null;
}) {
  const { link } = props;
  const host = hostOf(link.upstream);
  const isKey = link.owner.kind === "key";
  return (
    <Page title={`Connect ${host}`} viewer={null}>
      <div class="signin panel">
        <About link={link} />
        {props.error === null ? null : <Notice kind="error">{props.error}</Notice>}
        {!props.signedIn && props.signedInAs !== null ? (
          <Notice kind="error">
            You are signed in as {props.signedInAs}; this link is for {ownerName(link.owner)}.
          </Notice>
        ) : null}
        {props.signedIn || isKey ? (
          <form method="post" action={CONNECT_PATH}>
            <input type="hidden" name="link" value={props.text} />
            {props.signedIn ? null : (
              <>
                <label for="key">The key that made the call</label>
                <input id="key" name="key" type="password" autocomplete="off" required />
                <p class="muted">It is checked, not kept; no session starts.</p>
              </>
            )}
            <button type="submit" class="primary">
              Continue to {host}
            </button>
          </form>
        ) : props.idp === undefined ? (
          <Notice kind="error">
            Sign in to the console as {ownerName(link.owner)} first; no identity provider is
            configured here.
          </Notice>
        ) : (
          <p>
            <a class="button primary" href={props.idp}>
              Sign in with your identity provider
            </a>
          </p>
        )}
      </div>
    </Page>
  );
}

/** Go on to the authorization server from a page (a redirect would break `form-action`). */
function Onward(props: { target: string; host: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content={`0;url=${props.target}`} />
        <title>Continuing to {props.host} · toolfence console</title>
      </head>
      <body>
        <p>
          Continuing to {props.host}. <a href={props.target}>Continue</a>
        </p>
      </body>
    </html>
  );
}

function Connected(props: { host: string; owner: ConnectionOwner }) {
  return (
    <Page title="Connected" viewer={null}>
      <div class="signin panel">
        <h1>Connected</h1>
        <Notice kind="info">
          {props.host} is connected for {ownerName(props.owner)}.
        </Notice>
        <p>
          Go back to the agent: the same call goes through now. Your connections are listed at{" "}
          <a href="/console/connections">Connections</a>.
        </p>
      </div>
    </Page>
  );
}

/** The owner the signed-in console user is, and their name; null when nobody is signed in. */
async function signedInOwner(c: ConsoleContext, fence: Fence) {
  const operator = await operatorOf(c, fence);
  const owner = ownerOf(operator?.principal);
  if (operator === null || owner === null) return null;
  return { tenant: operator.tenant, ownerId: await ownerIdOf(owner), name: ownerName(owner) };
}

/** Whether the key typed on the page is the one the link is for. */
async function keyMatches(c: ConsoleContext, link: ConnectLink, key: string): Promise<boolean> {
  if (link.owner.kind !== "key" || !BEARER_TOKEN.test(key)) return false;
  const found = await principalOfKey(c.env, key, c.req.raw);
  return found.ok && found.value.tenant === link.tenant && found.value.keyId === link.owner.key_id;
}

/** The connect page, its form, and the callback, on the console's app (base path `/console`). */
export function mountUpstreamConnect(app: Hono<ConsoleEnv>, fence: Fence): void {
  const path = CONNECT_PATH.slice("/console".length);

  app.get(path, async (c) => {
    const secret = consoleSecret(c.env);
    if (secret === null) return html(<Refused title="Cannot connect" text={NO_SECRET} />, 503);
    const text = c.req.query("link");
    const link = await openLink(secret, text);
    if (link === "invalid") return html(<Refused title="Cannot connect" text={INVALID} />, 400);
    if (link === "expired") return html(<Refused title="Cannot connect" text={EXPIRED} />, 410);
    const signed = await signedInOwner(c, fence);
    const matches = signed?.tenant === link.tenant && signed.ownerId === link.ownerId;
    const here = `${CONNECT_PATH}?link=${encodeURIComponent(text ?? "")}`;
    return html(
      <ConnectPage
        link={link}
        text={text ?? ""}
        signedIn={matches}
        signedInAs={matches ? null : (signed?.name ?? null)}
        idp={oidcLink(c.env, here)}
        error={null}
      />,
    );
  });

  app.post(path, async (c) => {
    const secret = consoleSecret(c.env);
    if (secret === null) return html(<Refused title="Cannot connect" text={NO_SECRET} />, 503);
    const form = await c.req.parseBody();
    const text = typeof form.link === "string" ? form.link : undefined;
    const link = await openLink(secret, text);
    if (link === "invalid") return html(<Refused title="Cannot connect" text={INVALID} />, 400);
    if (link === "expired") return html(<Refused title="Cannot connect" text={EXPIRED} />, 410);
    const signed = await signedInOwner(c, fence);
    const key = typeof form.key === "string" ? form.key.trim() : "";
    const bySession = signed?.tenant === link.tenant && signed.ownerId === link.ownerId;
    if (!bySession && !(await keyMatches(c, link, key))) {
      const limited = await signInFailuresExceeded(c.env, c.req.raw);
      const error = limited ? "Too many failed attempts; wait a minute." : NOT_THE_CALLER;
      const page = (
        <ConnectPage
          link={link}
          text={text ?? ""}
          signedIn={false}
          signedInAs={signed?.name ?? null}
          idp={oidcLink(c.env, `${CONNECT_PATH}?link=${encodeURIComponent(text ?? "")}`)}
          error={error}
        />
      );
      return html(page, limited ? 429 : 403);
    }
    const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
    const origin = fenceOrigin(c.env, c.req.url, local);
    if (origin === null) return html(<Refused title="Cannot connect" text={NO_ORIGIN} />, 503);
    const state = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    // Loaded here: the SDK is evaluated by the first connection, not by the console.
    const { beginFlow } = await import("../connections/oauth-client.ts");
    const started = await beginFlow(origin, link.upstream, link.scope, state);
    if (!started.ok) {
      const text = `${hostOf(link.upstream)} could not be reached as an OAuth server: ${started.error}`;
      return html(<Refused title="Cannot connect" text={text} />, 502);
    }
    const who = { tenant: link.tenant, ownerId: link.ownerId, owner: link.owner };
    const objects = connectionsOf(c.env, link.tenant, link.ownerId);
    const begun = await objects.begin(who, state, started.value.snapshot, link);
    if (begun === "used") return html(<Refused title="Cannot connect" text={USED} />, 409);
    if (begun === "unavailable") {
      return html(<Refused title="Cannot connect" text={NO_KEYS} />, 503);
    }
    const cookie = [link.tenant, link.ownerId, state].join(" ");
    await setSignedCookie(c, FLOW_COOKIE, cookie, secret, {
      ...FLOW_OPTIONS,
      maxAge: FLOW_TTL_MS / 1000,
    });
    const target = started.value.authorizationUrl;
    const page = await (<Onward target={target} host={hostOf(target)} />);
    c.header("Cache-Control", "no-store");
    return c.html(`<!doctype html>${page}`);
  });

  app.get("/connections/callback", async (c) => {
    const secret = consoleSecret(c.env);
    if (secret === null) return html(<Refused title="Cannot connect" text={NO_SECRET} />, 503);
    const stored = await getSignedCookie(c, secret, FLOW_COOKIE);
    deleteCookie(c, FLOW_COOKIE, FLOW_OPTIONS);
    const [tenant = "", ownerId = "", state = ""] =
      typeof stored === "string" ? stored.split(" ") : [];
    // RFC 6749 §10.12: the answer belongs to the flow this browser started, by its state.
    if (state === "" || c.req.query("state") !== state) {
      return html(<Refused title="Not connected" text={NOT_THIS_BROWSER} />, 400);
    }
    const objects = connectionsOf(c.env, tenant, ownerId);
    const snapshot = await takeFlow(objects, state);
    if (snapshot === null) return html(<Refused title="Not connected" text={FLOW_GONE} />, 400);
    const local = isLocalDevelopment(c.req.raw.headers, c.req.url);
    const origin = fenceOrigin(c.env, c.req.url, local) ?? "";
    const { finishFlow } = await import("../connections/oauth-client.ts");
    const grant = await finishFlow(origin, snapshot, new URL(c.req.url));
    const host = hostOf(snapshot.upstream);
    if (!grant.ok) {
      const text = `${host} did not connect: ${grant.error}. Call the tool again for a new link.`;
      return html(<Refused title="Not connected" text={text} />, 400);
    }
    const view = await objects.store(grant.value);
    if (view === null) return html(<Refused title="Not connected" text={NO_KEYS} />, 503);
    return html(<Connected host={host} owner={view.owner} />);
  });
}

const NO_SECRET =
  "Connecting is not configured here: set the CONSOLE_SECRET secret (32 characters or more).";
const INVALID = "This connect link is not one the fence made. Call the tool again for a new one.";
const EXPIRED = "This connect link has expired. Call the tool again for a new one.";
const USED = "This connect link was used already. Call the tool again for a new one.";
const NOT_THE_CALLER =
  "Only the principal who made the call can connect it: sign in as them, or type the key that made the call.";
const NO_ORIGIN = "This deployment has no PUBLIC_URL: the upstream could not send you back here.";
const NO_KEYS =
  "Connections are not configured here: set the CONNECTION_KEYS secret (docs/security.md).";
const NOT_THIS_BROWSER =
  "This answer does not belong to a connection started in this browser, or it took too long.";
const FLOW_GONE =
  "This connection was finished already, or took longer than ten minutes. Call the tool again for a new link.";
