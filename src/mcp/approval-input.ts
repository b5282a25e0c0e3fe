/**
 * A call waiting for a person, asked in the host's own window (MCP 2026-07-28, multi
 * round-trip requests): instead of the pending result, the `tools/call` answers an
 * `input_required` result holding one URL-mode elicitation, the console page where a person
 * decides that exact approval. The host shows the page; once the person is done it retries
 * the same call, which the fence proposes again like any other: the ledger's grant decides.
 * The retry carries nothing the fence trusts: no `requestState` is minted, and the response
 * to the elicitation only says whether to ask again.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Decision } from "../http/decision.ts";
import { pendingApproval } from "./results.ts";

/** The key of the one input request, and of the host's response to it on the retry. */
const APPROVAL_INPUT = "io.toolfence/approval";

/**
 * Whether this request's client declared URL-mode elicitation (per-request client
 * capabilities, 2026-07-28 `_meta` envelope). An empty `elicitation: {}` means form mode only.
 */
export function declaresUrlElicitation(mcpReq: ServerContext["mcpReq"]): boolean {
  const elicitation = clientCapabilitiesOf(mcpReq)?.elicitation as { url?: unknown } | undefined;
  return elicitation?.url !== undefined;
}

/** The client capabilities a 2026-07-28 request declared in its `_meta` envelope, if any. */
export function clientCapabilitiesOf(
  mcpReq: ServerContext["mcpReq"],
): Record<string, unknown> | undefined {
  // The SDK types the envelope without its keys; it holds what the request's `_meta` carried.
  const envelope = mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
}

/**
 * Whether the host answered the page with decline or cancel: the person at the host would not
 * open it, which decides nothing about the approval, so the call gets the ordinary pending
 * result instead of being asked again.
 */
export function pageRefused(mcpReq: ServerContext["mcpReq"]): boolean {
  const answer = inputResponse(mcpReq.inputResponses, APPROVAL_INPUT);
  return answer.kind === "elicit" && answer.action !== "accept";
}

/** The input-required result of a pending decision (202): the approval's page to open. */
export function approvalInput(
  d: Decision,
  tool: string,
  page: (approvalId: string) => string,
): InputRequiredResult {
  const approval = pendingApproval(d);
  const message = `A person must approve this call before it runs: ${tool} (rule ${approval.rule}). Open the page, sign in to the toolfence console and approve or deny it; the approval expires at ${approval.expires_at}. Nothing has run yet.`;
  const url = page(approval.approval_id);
  return inputRequired({
    inputRequests: { [APPROVAL_INPUT]: inputRequired.elicitUrl({ message, url }) },
  });
}
