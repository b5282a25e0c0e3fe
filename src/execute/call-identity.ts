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
