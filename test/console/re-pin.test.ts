import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../../demo/contracts/index.ts";
import { opsServiceStatus } from "../../demo/contracts/ops_service_status.ts";
import { buildApp } from "../../src/app.ts";
import { sha256Hex } from "../../src/core/canonical.ts";
import type { McpUpstream, ToolContract } from "../../src/core/contract.ts";
import { loadFence } from "../../src/core/policy.ts";
import { callerWith, json } from "../helpers.ts";
import { signedIn } from "./browser.ts";

// The demo's MCP server lists ops_service_status as it always has; this fence pinned an older
// listing of it (another description), so the console sees the tool drifted.
const upstream = opsServiceStatus.upstream as McpUpstream;
const listedNow = upstream.pinned.sha256;
const OLD = "Health of one service.";
const drifted: ToolContract = {
  ...opsServiceStatus,
  upstream: {
    ...upstream,
    pinned: {
      ...upstream.pinned,
      sha256: "0".repeat(64),
      schema: { ...(upstream.pinned.schema as object), description: OLD },
    },
  },
};
const fence = loadFence(
  POLICY_SOURCE,
  CONTRACTS.map((c) => (c.name === drifted.name ? drifted : c)),
);
if (!fence.ok) throw new Error(fence.error.join("; "));
const app = buildApp(fence.value);
const target = {
  async fetch(request: Request) {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, env, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  },
};
const PAGE = "/console/tools/ops_service_status/pin";

describe("re-pinning a drifted MCP tool in the console", { timeout: 30_000 }, () => {
  it("shows the pinned and the current listing side by side, with the diff", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "", target);
    const page = await (await browser.get(PAGE)).text();
    expect(page).toMatch(/<pre class="pinned">[^<]*Health of one service\./);
    expect(page).toMatch(/<pre class="current">[^<]*Health, replica count and deployed version/);
    expect(page).toMatch(
      /<pre class="diff">- &quot;description&quot;: &quot;Health of one service\.&quot;/,
    );
    expect(page).toContain(`name="sha256" value="${listedNow}"`);
    expect(page).toContain("Findings of the listing scan, now: none.");
  });

  it("records who accepted the new pin in the audit and shows the pin file to commit", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "", target);
    const unconfirmed = await browser.post(PAGE, { sha256: listedNow });
    expect(unconfirmed.status).toBe(422);
    const stale = await browser.post(PAGE, { sha256: "1".repeat(64), confirm: "yes" });
    expect(stale.status).toBe(409);
    const accepted = await browser.post(PAGE, {
      sha256: listedNow,
      confirm: "yes",
      note: "the server documents more now",
    });
    expect(accepted.status).toBe(200);
    const page = await accepted.text();
    expect(page).toContain(`&quot;sha256&quot;: &quot;${listedNow}&quot;`);
    expect(page).toContain(listedNow.slice(0, 12));
    const runId = /href="\/console\/runs\/(pin-ops_service_status-\d+)"/.exec(page)?.[1];
    expect(runId).toBeDefined();
    const audit = await json<{
      entries: {
        decision: string;
        tool: string | null;
        actor: string | null;
        note: string | null;
      }[];
    }>(await operator.get(`/v1/runs/${runId}/audit`));
    expect(audit.entries).toEqual([
      expect.objectContaining({
        decision: "pin_accepted",
        tool: "ops_service_status",
        actor: await sha256Hex(operator.key ?? ""),
        note: `accepted the listing ${listedNow} of ${upstream.tool}: the server documents more now`,
      }),
    ]);
  });

  it("is not there for a tool that is not an MCP tool", async () => {
    const operator = await callerWith({ role: "operator" });
    const browser = await signedIn(operator.key ?? "", target);
    expect((await browser.get("/console/tools/get_ticket/pin")).status).toBe(404);
  });
});
