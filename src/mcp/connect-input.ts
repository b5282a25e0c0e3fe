/**
 * A call refused `upstream_authorization_required` (its upstream is called as the person, who
 * has not connected it), as MCP asks a person to open a page. On 2025-11-25 and earlier: the
 * JSON-RPC error -32042, `URLElicitationRequiredError`, with one URL elicitation (the endpoint
 * is stateless, so it cannot know what the client's `initialize` declared; a client that does
 * not know the error still reads the link in its message). On 2026-07-28, to a client that
 * declares URL elicitation on the request: an input-required result with a URL elicitation,
 * retried by the host once the person is done; a client that declares none, or declined, gets
 * the `isError` result, whose problem details carry `connect_url`. Nothing in the retry is
 * trusted: the fence proposes the call again and asks the person's connection.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/server";
import type { Decision } from "../http/decision.ts";
import { declaresUrlElicitation } from "./approval-input.ts";
import { toolResult } from "./results.ts";

/** The key of the input request, and of the host's response to it on the retry. */
const CONNECT_INPUT = "io.toolfence/connect";

/** The connect link of a refusal for a missing connection, or null for any other decision. */
export function connectLinkOf(d: Decision): string | null {
  const { reason, connect_url } = d.body;
  return reason === "upstream_authorization_required" && typeof connect_url === "string"
    ? connect_url
    : null;
}

/** The refusal as the era asks a person for the page at `url` (see the module's comment). */
export function connectAnswer(
  d: Decision,
  url: string,
  tool: string,
  era: "2025" | "2026-07-28",
  mcpReq: ServerContext["mcpReq"],
): CallToolResult | InputRequiredResult {
  const host = URL.parse(url)?.host ?? "the fence";
  const message = `${tool} is called as you, and you have not connected its upstream. Open the page on ${host}, sign in as the caller and allow the upstream; then the same call goes through. Nothing has run yet.`;
  if (era === "2025") {
    const elicitationId = String(d.body.call_id ?? crypto.randomUUID());
    throw new UrlElicitationRequiredError([{ mode: "url", elicitationId, url, message }], message);
  }
  const declined = inputResponse(mcpReq.inputResponses, CONNECT_INPUT);
  const refused = declined.kind === "elicit" && declined.action !== "accept";
  if (!declaresUrlElicitation(mcpReq) || refused) return toolResult(d);
  return inputRequired({
    inputRequests: { [CONNECT_INPUT]: inputRequired.elicitUrl({ message, url }) },
  });
}
