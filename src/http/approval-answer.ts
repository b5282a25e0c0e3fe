/**
 * The agent's answer when a call needs a person (202 `needs_approval`): a new approval is first
 * noted in the tenant's index, which caps the tenant's pending approvals and rate-limits the
 * webhook's pages; a paged approval is posted to the webhook after the answer.
 */
import { DECISION_TABLE, refuse } from "../core/reasons.ts";
import type { ApprovalAdmission } from "../ledger/approvals/approval-index.ts";
import { noticeOf, notify } from "../ledger/approvals/webhook.ts";
import type { ApprovalTicket, BudgetView, LedgerProposal, RunRef } from "../ledger/protocol.ts";
import { mutationKey } from "../ledger/run/keys.ts";
import { recordApprovalRequested } from "../telemetry/index.ts";
import type { AppContext } from "./context.ts";
import type { Decision } from "./decision.ts";
import { problemDetails } from "./problem.ts";
import { ledgerOf } from "./runs.ts";

/** How long an agent is asked to wait before proposing the call again (RFC 9110 §10.2.3). */
export const APPROVAL_RETRY_AFTER_S = 30;

/** What the ledger answered for a call that waits for a person. */
export interface AwaitedApproval {
  /** The approval. */
  approval: ApprovalTicket;
  /** The run's budget (nothing was charged). */
  budget: BudgetView;
}

/** The 202 body's `detail`: what happened and what the agent does next. */
function pendingDetail(a: ApprovalTicket): string {
  return `Policy rule ${a.rule} asks a person to approve this call; nothing ran and nothing was charged. Propose the same call again (same idempotency key) after an operator approves it, before ${a.expires_at}.`;
}

/**
 * Decide 202 `needs_approval` once the tenant's index took a new approval (else 429
 * `approval_cap_exhausted`: the run takes it back), and page it once the answer is out.
 */
export async function awaitApproval(
  c: AppContext,
  ref: RunRef,
  proposal: LedgerProposal,
  answer: AwaitedApproval,
): Promise<Decision> {
  const { approval, budget } = answer;
  if (approval.created) {
    const admitted = await indexApproval(c, ref, proposal, approval);
    if (!admitted.ok) return tenantFull(c, ref, proposal, approval, admitted.max);
    // Counted once it waits: one the tenant's cap takes back is never requested, nor decided.
    recordApprovalRequested(c.env, proposal.tool);
    if (admitted.page) c.executionCtx.waitUntil(announce(c, ref, proposal, approval));
  }
  const body = problemDetails(refuse("approval_required", pendingDetail(approval)), {
    approval_id: approval.approval_id,
    expires_at: approval.expires_at,
    rule: approval.rule,
    retry_after_s: APPROVAL_RETRY_AFTER_S,
    call_id: proposal.callId,
    budget,
  });
  const { status } = DECISION_TABLE.approval_required;
  return {
    status,
    body,
    cache: null,
    cacheKey: null,
    replayed: false,
    retryAfterS: APPROVAL_RETRY_AFTER_S,
  };
}

/** Tell the tenant's index, after the answer, that a call spent its grant. */
export function noteConsumed(c: AppContext, ref: RunRef, approvalId: string): void {
  const tenant = c.env.TENANT_INDEX.getByName(ref.tenant);
  c.executionCtx.waitUntil(tenant.markApproval(approvalId, "consumed"));
}

/** Note a new approval in the tenant's index, which counts the tenant's pending ones. */
function indexApproval(
  c: AppContext,
  ref: RunRef,
  proposal: LedgerProposal,
  approval: ApprovalTicket,
): Promise<ApprovalAdmission> {
  const { policy } = c.get("fence");
  const caps = {
    pending: policy.max_pending_approvals_per_tenant,
    pagesPerMinute: policy.approval_pages_per_minute,
  };
  const entry = {
    approval_id: approval.approval_id,
    run_id: ref.runId,
    tool: proposal.tool,
    rule: approval.rule,
    status: "pending" as const,
    requested_at: approval.requested_at,
    expires_at: approval.expires_at,
  };
  return c.env.TENANT_INDEX.getByName(ref.tenant).admitApproval(entry, caps);
}

/** The tenant has as many approvals pending as it may: the run takes this one back. */
async function tenantFull(
  c: AppContext,
  ref: RunRef,
  proposal: LedgerProposal,
  approval: ApprovalTicket,
  max: number,
): Promise<Decision> {
  const detail = `${max} approvals of tenant ${ref.tenant} already wait for a person; propose the call again once one is decided or expires.`;
  const refusal = refuse("approval_cap_exhausted", detail);
  const { callId, tool, form, key } = proposal;
  const budget = await ledgerOf(c.env, ref).dropApproval(ref, approval.approval_id, {
    callId,
    tool,
    form,
    key,
    refusal,
  });
  const body = problemDetails(refusal, { call_id: callId, budget });
  const { status } = DECISION_TABLE.approval_cap_exhausted;
  return { status, body, cache: null, cacheKey: null, replayed: false, retryAfterS: null };
}

/** Page the deployment's webhook about a new approval, if one is configured. */
function announce(
  c: AppContext,
  ref: RunRef,
  proposal: LedgerProposal,
  approval: ApprovalTicket,
): Promise<void> {
  const pending = {
    ...approval,
    run_id: ref.runId,
    tool: proposal.tool,
    idempotency_key: mutationKey(proposal),
    status: "pending" as const,
    decided_by: null,
    note: null,
  };
  const asked = new URL(c.req.url).origin;
  return notify(c.env, noticeOf(c.env, "approval.requested", ref.tenant, pending, asked));
}
