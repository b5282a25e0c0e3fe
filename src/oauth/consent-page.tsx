/**
 * The pages of `/console/connect`: sign in, then the consent that is a budget. Everything
 * the client chose (its name, its redirect host) is escaped by Hono's JSX; the page has no
 * inline script and posts only back to itself.
 */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Operator } from "../console/context.ts";
import { html, Notice, Page, SignInPanel } from "../console/layout.tsx";
import type { RunLimits } from "../core/limits.ts";

/** The sign-in form, posting the key back to the same authorization request. */
export function ConnectSignIn(props: { action: string; error: string | null; oidc?: string }) {
  return (
    <SignInPanel
      title="Connect an app"
      heading="Sign in to connect an app"
      error={props.error}
      idpHref={props.oidc ?? null}
      action={props.action}
      hint="An operator key of the tenant whose tools the app will use."
    />
  );
}

/** An error the authorization request cannot go on from: nothing is sent to the client. */
export function ConnectError(props: { text: string }) {
  return (
    <Page title="Cannot connect" viewer={null}>
      <Notice kind="error">{props.text}</Notice>
    </Page>
  );
}

/**
 * An authorization request refused before any page of the console's app (its client id is a
 * metadata document the fence does not fetch): the error page, with the console's headers.
 */
export async function refusedAuthorization(text: string): Promise<Response> {
  const res = await html(<ConnectError text={text} />, 400);
  res.headers.set(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
  res.headers.set("X-Content-Type-Options", "nosniff");
  res.headers.set("Referrer-Policy", "same-origin");
  return res;
}

/** What the consent page shows and lets the person narrow. */
export interface ConsentView {
  /** The client and where its tokens go, as the library describes them. */
  details: ConsentDescription;
  /** The library's one-use, browser-bound handle: the form's CSRF token. */
  handle: string;
  /** The tenant's limits: the most the person may grant. */
  base: RunLimits;
  /** The tools the person may grant. */
  tools: readonly string[];
  /** Why the last submission was refused, if it was. */
  error: string | null;
}

function Client(props: { details: ConsentDescription }) {
  const { details } = props;
  return (
    <>
      <p>
        <strong>{details.clientName}</strong>{" "}
        {details.clientDomain === undefined ? (
          <span class="muted">(registered itself; its name is not verified)</span>
        ) : (
          <>
            published by <strong>{details.clientDomain}</strong>
          </>
        )}{" "}
        asks to call tools through this fence. Its access goes to{" "}
        <strong>{details.redirectHost}</strong>.
      </p>
      {details.redirectIsLoopback ? (
        <Notice kind="error">
          This sends access to an app on your computer: continue only if you just started connecting
          from it.
        </Notice>
      ) : null}
    </>
  );
}

function NumberField(props: { name: string; label: string; value: number; max: number }) {
  return (
    <label>
      {props.label} (at most {props.max})
      <input
        type="number"
        name={props.name}
        min={0}
        max={props.max}
        value={String(props.value)}
        required
      />
    </label>
  );
}

/** The consent: the client, the tenant, the tools and the budget each run of the grant gets. */
export function ConsentPage(props: { view: ConsentView; viewer: Operator; action: string }) {
  const { details, handle, base, tools, error } = props.view;
  const seconds = Math.floor(base.deadline_ms / 1000);
  return (
    <Page title="Connect an app" viewer={props.viewer}>
      <div class="panel">
        <h1>Connect {details.clientName}</h1>
        {error === null ? null : <Notice kind="error">{error}</Notice>}
        <Client details={details} />
        <p>
          Its calls run in tenant <code>{props.viewer.tenant}</code>, under this budget. The budget
          is per run; a run lasts the deadline below, and a new one starts after it only if the last
          one was not halted or spent.
        </p>
        <form method="post" action={props.action}>
          <input type="hidden" name="handle" value={handle} />
          <fieldset>
            <legend>Tools it may call</legend>
            {tools.map((tool) => (
              <label>
                <input type="checkbox" name="tools" value={tool} checked /> <code>{tool}</code>
              </label>
            ))}
          </fieldset>
          <NumberField
            name="max_mutations"
            label="Most mutations per run"
            value={base.max_mutations}
            max={base.max_mutations}
          />
          <NumberField
            name="max_paid_calls"
            label="Most paid calls per run"
            value={base.max_paid_calls}
            max={base.max_paid_calls}
          />
          <NumberField
            name="deadline_seconds"
            label="Deadline of each run, seconds"
            value={seconds}
            max={seconds}
          />
          <p>
            <button type="submit" name="decision" value="approve" class="primary">
              Allow
            </button>{" "}
            <button type="submit" name="decision" value="deny">
              Deny
            </button>
          </p>
        </form>
      </div>
    </Page>
  );
}
