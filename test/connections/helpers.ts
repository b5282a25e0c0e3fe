/** Calling the demo's notes tools as a principal, and connecting them, in the workers pool. */
import { expect } from "vitest";
import { type Caller, callerWith, newRun } from "../helpers.ts";
import { Browser } from "../oauth/helpers.ts";
import type { StandIn } from "./stand-in.ts";

/** From this machine, so the fence is under local development and serves the connect page. */
export const LOOPBACK = { "CF-Connecting-IP": "127.0.0.1" };

/** A fresh operator key of the default tenant, its caller and key. */
export async function principal(role: "agent" | "operator" = "operator") {
  const who = await callerWith({ tenant: "default", role });
  return { ...who, key: who.key ?? "" };
}

/** Call a notes tool (`notes_whoami` by default) in `run` as `who`. */
export async function callNotes(
  who: Caller,
  run = newRun("notes"),
  tool = "notes_whoami",
  args: Record<string, unknown> = {},
  key?: string,
) {
  const body = { tool, args, ...(key === undefined ? {} : { idempotency_key: key }) };
  const res = await who.propose(run, body, { headers: LOOPBACK });
  return { res, body: (await res.json()) as Record<string, unknown>, run };
}

/** The connect link's path and query, from its absolute URL. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** Where the page continuing to the authorization server sends the browser. */
export function onwardOf(page: string): string {
  const m = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(page);
  if (m?.[1] === undefined) throw new Error(`no onward link on the page:\n${page}`);
  return m[1].replaceAll("&amp;", "&");
}

/**
 * Open `connectUrl` in a browser, type `key`, allow at the stand-in as `sub`, come back:
 * the callback's answer and the browser.
 */
export async function connect(
  standIn: StandIn,
  connectUrl: string,
  key: string,
  sub: string,
  browser = new Browser(),
) {
  const page = await browser.fetch(pathOf(connectUrl));
  expect(page.status).toBe(200);
  const link = new URL(connectUrl).searchParams.get("link") ?? "";
  const started = await browser.post("/console/connections/connect", { link, key });
  const onward = await started.text();
  expect(started.status, onward).toBe(200);
  const back = await standIn.consent(onwardOf(onward), sub);
  const done = await browser.fetch(pathOf(back));
  return { done, text: await done.text(), browser };
}

/** A call refused for want of a connection: its connect link. */
export function connectUrlOf(body: Record<string, unknown>): string {
  expect(body).toMatchObject({
    reason: "upstream_authorization_required",
    decision: "escalate",
  });
  expect(typeof body.connect_url).toBe("string");
  return String(body.connect_url);
}
