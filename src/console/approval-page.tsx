/**
 * The page of one approval, `/console/runs/{run_id}/approvals/{approval_id}`: where a link
 * sends a person to decide exactly that call (the URL an MCP host opens for a call waiting on
 * approval, src/mcp/approval-input.ts). It reads the approval through the same RunLedger
 * method the API's edit reads, and its form posts to the console's approval act.
 */
import type { Hono } from "hono";
import type { Fence } from "../core/policy.ts";
import { APPROVAL_ID } from "../http/approvals.ts";
import { ledgerOf } from "../ledger/address.ts";
import { runRefOf } from "./access.ts";
import type { ConsoleContext, ConsoleEnv } from "./context.ts";
import { html, Notice, Page } from "./layout.tsx";
import { Approval, waitingOf } from "./waiting.tsx";

/** What a decided approval's page says instead of the form. */
const SETTLED: Record<string, string> = {
  approved: "It is approved: the agent's next proposal of the same call is admitted, once.",
  consumed: "It was approved and the call has run.",
  denied: "It was denied: the agent's proposals of the call are refused.",
  expired: "It expired before it was decided: the agent's proposals of the call are refused.",
};

/** Mount the approval page; `missing` answers an unknown run or approval. */
export function mountApprovalPage(
  app: Hono<ConsoleEnv>,
  fence: Fence,
  missing: (c: ConsoleContext) => Promise<Response>,
): void {
  app.get("/runs/:run_id/approvals/:approval_id", async (c) => {
    const ref = runRefOf(c);
    const id = c.req.param("approval_id");
    if (ref === null || !APPROVAL_ID.test(id)) return missing(c);
    const ledger = ledgerOf(c.env, ref);
    const approval = await ledger.approval(id);
    const base = `/console/runs/${encodeURIComponent(ref.runId)}`;
    if (approval === null) {
      // A run never seen has no status: its own 404, not the approval's.
      if ((await ledger.status()) === null) return missing(c);
      return html(
        <Page title="No such approval" viewer={c.get("operator")}>
          <Notice kind="error">
            This run has no such approval. <a href={base}>Back to the run</a>
          </Notice>
        </Page>,
        404,
      );
    }
    // The ledger's view already reads a pending approval past its deadline as expired.
    const { status } = approval;
    return html(
      <Page title={`Approval ${id}`} viewer={c.get("operator")}>
        <h1>
          Approve <code>{approval.tool}</code> in run <a href={base}>{ref.runId}</a>?
        </h1>
        {status === "pending" ? (
          <Approval base={base} waiting={waitingOf(fence, c.get("operator"), approval)} />
        ) : (
          <Notice kind="info">{SETTLED[status] ?? status}</Notice>
        )}
      </Page>,
    );
  });
}
