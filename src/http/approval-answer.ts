/**
 * The agent's answer when a call needs a person (202 `needs_approval`), and the notices a new
 * approval sends after it: the tenant's index (so operators can list it) and the webhook.
 */
import { DECISION_TABLE, refuse } from "../core/reasons.ts";
import type { ApprovalTicket } from "../ledger/approval-types.ts";
import type { BudgetView, LedgerProposal, RunRef } from "../ledger/protocol.ts";
import { deliver, webhookOf } from "./approval-webhook.ts";
import type { AppContext } from "./context.ts";
import { problemBody } from "./problem.ts";

/** How long an agent is asked to wait before proposing the call again (RFC 9110 §10.2.3). */
export const APPROVAL_RETRY_AFTER_S = 30;

/** What the ledger answered for a call that waits for a person. */
export interface AwaitedApproval {
  /** The approval. */
  approval: ApprovalTicket;
  /** The run's budget (nothing was charged). */
  budget: BudgetView;
}

/** The fields of the 202 body, shared with the MCP form. */
export function pendingDetail(a: ApprovalTicket): string {
  return `Policy rule ${a.rule} asks a person to approve this call; nothing ran and nothing was charged. Propose the same call again (same idempotency key) after an operator approves it, before ${a.expires_at}.`;
}

/** Answer 202 `needs_approval`, and announce a new approval once the answer is out. */
export function awaitApproval(
  c: AppContext,
  ref: RunRef,
  proposal: LedgerProposal,
  answer: AwaitedApproval,
): Response {
  const { approval, budget } = answer;
  if (approval.created) c.executionCtx.waitUntil(announce(c.env, ref, proposal, approval));
  const body = problemBody(refuse("approval_required", pendingDetail(approval)), {
    approval_id: approval.approval_id,
    expires_at: approval.expires_at,
    rule: approval.rule,
    retry_after_s: APPROVAL_RETRY_AFTER_S,
    call_id: proposal.callId,
    budget,
  });
  return new Response(body, {
    status: DECISION_TABLE.approval_required.status,
    // Not an error: the call is accepted for a decision (RFC 9110 §15.3.3), so plain JSON.
    headers: { "Content-Type": "application/json", "Retry-After": String(APPROVAL_RETRY_AFTER_S) },
  });
}

async function announce(
  env: Env,
  ref: RunRef,
  proposal: LedgerProposal,
  approval: ApprovalTicket,
): Promise<void> {
  await env.TENANT_LEDGER.getByName(ref.tenant).noteApproval({
    approval_id: approval.approval_id,
    run_id: ref.runId,
    tool: proposal.tool,
    rule: approval.rule,
    status: "pending",
    requested_at: approval.requested_at,
    expires_at: approval.expires_at,
  });
  const target = webhookOf(env);
  if (target === null) return;
  const body = JSON.stringify({
    type: "approval.requested",
    tenant: ref.tenant,
    run_id: ref.runId,
    approval_id: approval.approval_id,
    tool: proposal.tool,
    rule: approval.rule,
    args: JSON.parse(approval.args) as unknown,
    idempotency_key: proposal.effect === "mutate" ? proposal.key : null,
    requested_at: approval.requested_at,
    expires_at: approval.expires_at,
    decide: `/v1/runs/${ref.runId}/approvals/${approval.approval_id}`,
  });
  await deliver(target, body);
}
