/**
 * The page shell every console page shares, and the small pieces pages repeat: the
 * decision and status badges (a colour and always a text label, never colour alone) and
 * the budget gauge. Server-rendered with Hono's JSX; no front-end build.
 */
import type { Child } from "hono/jsx";
import type { HtmlEscapedString } from "hono/utils/html";
import { principalName } from "../core/principal.ts";
import type { AuditDecision } from "../ledger/protocol.ts";
import { attentionOf } from "./attention.ts";
import type { Operator } from "./context.ts";

/** A rendered page with its doctype (HTML's no-quirks mode), never cached. */
export async function html(
  node: HtmlEscapedString | Promise<HtmlEscapedString>,
  status = 200,
): Promise<Response> {
  // An async part (the header's counts) makes the string a promise.
  const body = await (await node).toString();
  return new Response(`<!doctype html>${body}`, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

const STATUS_LABEL = { open: "open", halted: "halted", expired: "past deadline" } as const;

/** The whole page: header with navigation and sign-out, then `children`. */
export function Page(props: { title: string; viewer: Operator | null; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${props.title} · toolfence console`}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer />
      </head>
      <body>
        <header class="top">
          <span class="brand">toolfence console</span>
          {props.viewer === null ? null : (
            <>
              <nav>
                <a href="/console/runs">Runs</a>
                <a href="/console/tools">Tools</a>
                <a href="/console/grants">Grants</a>
                <a href="/console/connections">Connections</a>
              </nav>
              {props.viewer.runs === undefined ? null : <NeedsAPerson viewer={props.viewer} />}
              <span class="who">
                <span>
                  {principalName(props.viewer.principal)}, tenant <code>{props.viewer.tenant}</code>
                </span>
                <form class="inline" method="post" action="/console/sign-out">
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              </span>
            </>
          )}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** The header's count of what needs a person across the tenant's runs, each a link to them. */
async function NeedsAPerson(props: { viewer: Operator }) {
  const runs = (await props.viewer.runs?.()) ?? [];
  const a = attentionOf(runs, Date.now());
  const link = (filter: string, n: number, label: string) => (
    <a href={`/console/runs?status=${filter}`} class={n > 0 ? "count hot" : "count"}>
      <span class="num">{n}</span> {label}
    </a>
  );
  return (
    <nav class="attention" id="attention" aria-label="Needs a person">
      {link("approvals", a.approvals, "pending approvals")}
      {link("escalations", a.escalations, "open escalations")}
      {link("near_limit", a.nearLimit, "near a limit")}
      {link("halted", a.halted, "halted")}
    </nav>
  );
}

/** An ISO 8601 time as the console shows every time: `YYYY-MM-DD HH:MM:SS UTC`. */
export function utcTime(iso: string): string {
  return `${iso.replace("T", " ").slice(0, 19)} UTC`;
}

/** A decision as a coloured dot and its name. */
export function DecisionBadge(props: { decision: AuditDecision | string }) {
  return <span class={`badge d-${props.decision}`}>{props.decision}</span>;
}

/** A run's status as a coloured dot and its label. */
export function StatusBadge(props: { status: keyof typeof STATUS_LABEL }) {
  return <span class={`badge s-${props.status}`}>{STATUS_LABEL[props.status]}</span>;
}

/** One budget counter: a meter and "used / limit" in text. */
export function Gauge(props: { label: string; used: number; limit: number }) {
  const { label, used, limit } = props;
  return (
    <span class="gauge" title={`${label}: ${used} of ${limit} used`}>
      <meter min={0} max={Math.max(limit, 1)} value={used} low={limit * 0.7} high={limit * 0.9} />{" "}
      <span class="num">
        {used} / {limit}
      </span>
    </span>
  );
}

/** A notice above a page's content: what an action did or why it was refused. */
/**
 * A sign-in page: the identity provider's link when one is configured, and the operator-key
 * form posting to `action` (the console's and the connect page's sign-in).
 */
export function SignInPanel(props: {
  title: string;
  heading: string;
  error: string | null;
  idpHref: string | null;
  action: string;
  hint: string;
}) {
  return (
    <Page title={props.title} viewer={null}>
      <div class="signin panel">
        <h1>{props.heading}</h1>
        {props.error === null ? null : <Notice kind="error">{props.error}</Notice>}
        {props.idpHref === null ? null : (
          <p>
            <a class="button primary" href={props.idpHref}>
              Sign in with your identity provider
            </a>
          </p>
        )}
        <form method="post" action={props.action}>
          <label for="key">Operator key</label>
          <input id="key" name="key" type="password" autocomplete="off" required />
          <p class="muted">{props.hint}</p>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
      </div>
    </Page>
  );
}

export function Notice(props: { kind: "info" | "error"; children: Child }) {
  return (
    <p class={props.kind === "error" ? "notice error" : "notice"} role="status">
      {props.children}
    </p>
  );
}
