/** Who an upstream call is made for, and the headers that say so on its connection. */

/** Who a call is made for: the headers its connection carries. */
export interface CallIdentity {
  /** Tenant the call is made for. */
  tenant: string;
  /** Run the call belongs to. */
  runId: string;
}

/** The headers a call to an MCP server carries besides its credentials (mcp.ts). */
export function callHeaders(who: CallIdentity): Record<string, string> {
  return { "X-Toolfence-Tenant": who.tenant, "X-Toolfence-Run": who.runId };
}

/** The principal's token a call as the principal sends (src/connections/for-call.ts). */
export interface PrincipalToken {
  /** The access token. */
  token: string;
  /** The connection it came from. */
  connectionId: string;
  /** Say the upstream refused it (HTTP 401), so the connection refreshes before its next use. */
  rejected: () => void;
}

/** The `Authorization` header of a call that sends the principal's token, else none. */
export function bearerHeader(bearer: PrincipalToken | undefined): Record<string, string> {
  // RFC 6750 §2.1.
  return bearer === undefined ? {} : { Authorization: `Bearer ${bearer.token}` };
}
