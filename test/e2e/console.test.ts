import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");
const KEY = "tf_dev_local_key";
const auth = { Authorization: `Bearer ${KEY}` };

/** Debian's Chromium: nothing is downloaded, there is no network for it. */
const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Where screenshots go: `SCREENSHOT_DIR=docs` refreshes the README's; else a temp folder,
 * removed after the run.
 */
const KEPT_SHOTS = process.env.SCREENSHOT_DIR;
const SHOTS = KEPT_SHOTS ?? mkdtempSync(join(tmpdir(), "toolfence-shots-"));

/** How long a new entry may take to appear: the page polls once a second. */
const LIVE_WAIT_MS = 2_000;

let profile: string;
let context: BrowserContext;
let page: Page;

async function propose(run: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/runs/${run}/calls`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "toolfence-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
  });
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
  if (KEPT_SHOTS === undefined) rmSync(SHOTS, { recursive: true, force: true });
});

describe("the console in Chromium", () => {
  const run = `console-${crypto.randomUUID().slice(0, 8)}`;

  it("signs in with an operator key and lists the tenant's runs", async () => {
    const ticket = { ticket_id: `T-${run}`, title: "Auth is down", priority: "high" };
    const logs = { tool: "fetch_service_logs", args: { service: "auth", window: "1h" } };
    expect((await propose(run, { tool: "noop", args: { note: "first" } })).status).toBe(200);
    const created = await propose(
      run,
      { tool: "create_ticket", args: ticket },
      {
        "Idempotency-Key": `k-${run}-create`,
      },
    );
    expect(created.status).toBe(200);
    expect((await propose(run, logs)).status).toBe(200);
    expect((await propose(run, logs)).headers.get("X-Cache")).toMatch(/^hit/);
    await page.goto(`${url}/console`);
    await page.fill("#key", KEY);
    await page.click("button[type=submit]");
    await page.waitForURL(`${url}/console/runs`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Runs");
    await expect(page.locator("#runs").textContent()).resolves.toContain(run);
    await page.screenshot({ path: join(SHOTS, "console-runs.png") });
  });

  it("shows new calls on the timeline without a reload", async () => {
    await page.goto(`${url}/console/runs/${run}`);
    // Entries are the audit's: a call that reached its tool is two (pending, then its outcome).
    await page.waitForSelector("#e-6");
    await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
    expect((await propose(run, { tool: "noop", args: { note: "second" } })).status).toBe(200);
    await page.waitForSelector("#e-7", { timeout: LIVE_WAIT_MS + 1_000 });
    await expect(page.locator("#e-7 .badge").textContent()).resolves.toBe("applied");
    expect(await page.evaluate(() => "sameDocument" in globalThis)).toBe(true);
  });

  it("opens a blocked call to show its issues and the payload as received", async () => {
    const bad = { tool: "fetch_service_logs", args: { service: 42, window_minutes: "lots" } };
    expect((await propose(run, bad)).status).toBe(422);
    await page.waitForSelector("#e-8", { timeout: LIVE_WAIT_MS + 1_000 });
    await expect(page.locator("#e-8 .badge").textContent()).resolves.toBe("block");
    await page.click("#e-8 summary");
    const fold = page.locator("#e-8 details");
    await expect(fold.locator("table.issues").isVisible()).resolves.toBe(true);
    await expect(fold.textContent()).resolves.toContain("window_minutes");
    await expect(fold.locator("pre").textContent()).resolves.toContain('"lots"');
    await page.screenshot({ path: join(SHOTS, "console-timeline.png"), fullPage: true });
  });

  it("draws the run's charts in SVG, coloured by the stylesheet, with their numbers", async () => {
    await page.goto(`${url}/console/runs/${run}`);
    await expect(page.locator("#chart-decisions rect.bar.d-block").count()).resolves.toBe(1);
    // No inline style passes the CSP: a bar's colour comes from the stylesheet's class.
    const fill = await page.evaluate(
      "getComputedStyle(document.querySelector('#chart-decisions rect.d-block')).fill",
    );
    expect(fill).toBe("rgb(196, 38, 46)");
    await expect(page.locator("#chart-mutations polyline.burn").count()).resolves.toBe(1);
    await page.click("#chart-decisions summary");
    await expect(page.locator("#chart-decisions table").textContent()).resolves.toContain("block");
    await page.goto(`${url}/console/runs`);
    await expect(page.locator("#chart-per-minute rect.bar").count()).resolves.toBeGreaterThan(0);
    await expect(page.locator("#chart-reasons table").textContent()).resolves.toContain(
      "contract_violation",
    );
    // The next steps act on the run's page.
    await page.goto(`${url}/console/runs/${run}`);
  });

  it("halts the run, and the next call is refused", async () => {
    await page.fill("#halt-reason", "agent looping on logs");
    await page.check("#halt input[name=confirm]");
    await page.click("#halt button[type=submit]");
    await page.waitForURL(/done=halted/);
    await expect(page.locator("#run-summary .badge").first().textContent()).resolves.toBe("halted");
    const refused = await propose(run, { tool: "noop", args: {} });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ reason: "run_halted" });
    await page.reload();
    await expect(page.locator("#e-10 code").nth(1).textContent()).resolves.toBe("run_halted");
  });

  it("approves a pending call, and the agent's re-proposal is applied", async () => {
    const other = `console-approve-${crypto.randomUUID().slice(0, 8)}`;
    const urgent = {
      tool: "create_ticket",
      args: { ticket_id: `T-${other}`, title: "Checkout is down", priority: "urgent" },
      idempotency_key: `k-${other}-urgent`,
    };
    const asked = await propose(other, urgent);
    expect(asked.status).toBe(202);
    const { approval_id: id } = (await asked.json()) as { approval_id: string };
    await page.goto(`${url}/console/runs/${other}`);
    await expect(page.locator(`#approval-${id} pre`).textContent()).resolves.toContain(
      "Checkout is down",
    );
    await page.fill(`#approval-${id} input[name=note]`, "on call approves");
    await page.click(`#approval-${id} button[value=approve]`);
    await page.waitForURL(/done=approved/);
    expect(await page.locator(`#approval-${id}`).count()).toBe(0);
    const applied = await propose(other, urgent);
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({ decision: "applied" });
    await page.waitForSelector("tbody[data-decision=applied] >> text=create_ticket", {
      timeout: LIVE_WAIT_MS + 1_000,
    });
  });

  const incident = `console-incident-${crypto.randomUUID().slice(0, 8)}`;

  it("leads with an incident: counts in the header, one row per call, the call's detail", async () => {
    const comment = {
      tool: "add_comment",
      args: { ticket_id: `T-${incident}-missing`, body: "paged the owner" },
      idempotency_key: `k-${incident}-comment`,
    };
    expect((await propose(incident, comment)).status).toBe(502);
    const urgent = {
      tool: "create_ticket",
      args: { ticket_id: `T-${incident}`, title: "Payments are down", priority: "urgent" },
      idempotency_key: `k-${incident}-urgent`,
    };
    expect((await propose(incident, urgent)).status).toBe(202);
    await page.goto(`${url}/console/runs`);
    const header = page.locator("#attention");
    await expect(header.textContent()).resolves.toMatch(/[1-9]\d* pending approvals/);
    await expect(header.textContent()).resolves.toMatch(/[1-9]\d* open escalations/);
    await expect(header.textContent()).resolves.toMatch(/[1-9]\d* halted/);
    // Runs that need a person come first, each saying why.
    const first = page.locator("#runs tbody tr").first();
    await expect(first.locator("td.why").textContent()).resolves.not.toBe("nothing");
    await expect(page.locator(`tr[data-run="${incident}"] td.why`).textContent()).resolves.toBe(
      "1 pending approval(s), 1 open escalation(s)",
    );
    await page.screenshot({ path: join(SHOTS, "console-runs.png") });
    await page.goto(`${url}/console/runs/${incident}`);
    // The escalated call is one row: its proposal and its outcome.
    await expect(page.locator("#e-1").getAttribute("data-decision")).resolves.toBe("escalate");
    expect(await page.locator("tbody[data-decision=pending]").count()).toBe(0);
    await page.click("#e-1 summary");
    const detail = page.locator("#e-1 details");
    await expect(detail.textContent()).resolves.toContain("Escalated: a person has to look");
    await expect(detail.textContent()).resolves.toContain("open: waiting for a person");
    await expect(detail.locator("pre").last().textContent()).resolves.toContain("paged the owner");
    // What the tickets service answered, as the audit keeps it.
    const upstream = detail.locator(".upstream");
    await expect(upstream.locator("strong").textContent()).resolves.toBe("Upstream answered 404");
    await expect(upstream.textContent()).resolves.toMatch(/\(\d+ bytes, redacted\)/);
    await expect(upstream.locator("pre").textContent()).resolves.toContain(`T-${incident}-missing`);
    const live = page.locator("#live-status");
    await page.waitForFunction(
      () =>
        /updated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/.test(
          (
            globalThis as unknown as {
              document: { getElementById(id: string): { textContent: string } | null };
            }
          ).document.getElementById("live-status")?.textContent ?? "",
        ),
      undefined,
      { timeout: LIVE_WAIT_MS + 1_000 },
    );
    await expect(live.textContent()).resolves.toMatch(/UTC$/);
    await expect(page.locator("#limit-deadline").inputValue()).resolves.toMatch(/^(\d+[dhms])+$/);
    await page.screenshot({ path: join(SHOTS, "console-timeline.png"), fullPage: true });
    await page.locator("#e-1").evaluate((row) => row.scrollIntoView());
    await page.screenshot({ path: join(SHOTS, "console-escalation.png") });
  });

  it("gives one approval a page: who decides, the quorum so far, the arguments to edit", async () => {
    const ticket = { ticket_id: `INC-${incident}`, title: "Payments are down", priority: "high" };
    const asked = await propose(incident, {
      tool: "create_ticket",
      args: ticket,
      idempotency_key: `k-${incident}-inc`,
    });
    expect(asked.status).toBe(202);
    const { approval_id: id, rule } = (await asked.json()) as { approval_id: string; rule: string };
    expect(rule).toBe("incident_ticket");
    const voted = await fetch(`${url}/v1/runs/${incident}/approvals/${id}`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ decision: "approve", note: "first of two" }),
    });
    expect(voted.status).toBe(200);
    expect(await voted.json()).toMatchObject({ status: "pending", quorum: 2 });
    await page.goto(`${url}/console/runs/${incident}/approvals/${id}`);
    await expect(page.locator("h1").textContent()).resolves.toBe(
      `Approve create_ticket in run ${incident}?`,
    );
    const form = page.locator(`#approval-${id}`);
    await expect(form.textContent()).resolves.toContain("rule incident_ticket");
    const deciders = form.locator(".deciders");
    await expect(deciders.textContent()).resolves.toContain(
      "Any operator of the tenant may decide.",
    );
    await expect(deciders.textContent()).resolves.toMatch(
      /Approved by 1 of 2 needed: development at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; 1 more approval needed\./,
    );
    await expect(form.locator("pre").textContent()).resolves.toContain(`INC-${incident}`);
    const edit = JSON.parse(await form.locator(`#args-${id}`).inputValue()) as unknown;
    expect(edit).toEqual(ticket);
    await expect(form.locator("button[value=approve]").isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, "console-approval.png"), fullPage: true });
  });

  it("fits a phone's width and follows a dark colour scheme", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${url}/console/runs/${run}`);
    // Page-side expressions (the project's types have no DOM).
    const overflow = await page.evaluate(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    expect(overflow).toBeLessThanOrEqual(0);
    const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(17, 19, 22)");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("signs out, and the console then refuses the browser", async () => {
    const session = await context.cookies(`${url}/console`);
    expect(session.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([
      ["tf_console", true, true, "Strict"],
    ]);
    await page.click("header form button");
    await page.waitForURL(`${url}/console`);
    expect(await context.cookies(`${url}/console`)).toEqual([]);
    // A copy of the signed-out cookie is refused too.
    await context.addCookies(session);
    // Sent to the sign-in, which would return to the page asked for.
    await page.goto(`${url}/console/runs`);
    expect(page.url()).toBe(`${url}/console?next=${encodeURIComponent("/console/runs")}`);
    await page.goto(`${url}/console/runs/${run}`);
    expect(page.url()).toBe(`${url}/console?next=${encodeURIComponent(`/console/runs/${run}`)}`);
    await expect(page.locator("#key").isVisible()).resolves.toBe(true);
    const status = await page.evaluate(async (path) => {
      const form = new URLSearchParams({ reason: "x", confirm: "yes" });
      return (await fetch(path, { method: "POST", body: form })).status;
    }, `/console/runs/${run}/halt`);
    expect(status).toBe(401);
  });
});
