/**
 * Upstreams called as the principal (`PrincipalAuth` in contract.ts): which contracts are, and
 * what else a contract that says so must be. The answers of such a tool are the person's own, so
 * they are never cached or shared, and the server is reached at a URL the deployment names
 * (the OAuth metadata is found from it, RFC 9728), never through a service binding.
 */
import type { McpUpstream, PrincipalAuth, SecretAuth, ToolContract } from "./contract.ts";

/** A contract whose upstream is called with the caller's own OAuth tokens. */
export type PrincipalTool = ToolContract & { upstream: McpUpstream & { auth: PrincipalAuth } };

/** Whether the contract's upstream is called as the principal: a property check, nothing more. */
export function callsAsPrincipal(contract: ToolContract): contract is PrincipalTool {
  const { upstream } = contract;
  return upstream.kind === "mcp" && upstream.auth !== undefined && "kind" in upstream.auth;
}

/** The fence's own secret an upstream is called with, or undefined (none, or the principal's). */
export function secretAuthOf(auth: SecretAuth | PrincipalAuth | undefined): SecretAuth | undefined {
  return auth === undefined || "kind" in auth ? undefined : auth;
}

/** RFC 6749 §3.3: a scope token is one or more of %x21 / %x23-5B / %x5D-7E. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/** Most scopes a contract may ask for. */
const MAX_SCOPES = 32;

/** The members a `PrincipalAuth` may have, and nothing else. */
const MEMBERS = new Set(["kind", "as", "scopes"]);

/**
 * What is wrong with how `contract` says its upstream is called as the principal, each problem
 * with the path of the offending value; none for a contract that does not say so.
 */
export function principalAuthProblems(contract: ToolContract): string[] {
  const { upstream } = contract;
  const auth = (upstream as { auth?: unknown }).auth;
  if (typeof auth !== "object" || auth === null || !("kind" in auth)) return [];
  const at = `contracts.${contract.name}.upstream.auth`;
  const problems: string[] = [];
  const given = auth as Record<string, unknown>;
  if (given.kind !== "oauth") problems.push(`${at}.kind: "oauth" is the only kind`);
  if (given.as !== "principal") problems.push(`${at}.as: "principal" is the only value`);
  for (const name of Object.keys(given)) {
    if (!MEMBERS.has(name)) problems.push(`${at}.${name}: not a member (kind, as, scopes)`);
  }
  problems.push(...scopeProblems(given.scopes, `${at}.scopes`));
  if (upstream.kind !== "mcp") {
    problems.push(`${at}: only an MCP server's tool is called as the principal`);
    return problems;
  }
  if (!("urlVar" in upstream.endpoint)) {
    problems.push(
      `contracts.${contract.name}.upstream.endpoint: a server called as the principal is reached at a URL ({ urlVar }), whose OAuth metadata names its authorization server`,
    );
  }
  if (contract.cacheTtlSeconds !== 0 || contract.sharedCache) {
    problems.push(
      `contracts.${contract.name}.cacheTtlSeconds: a tool called as the principal answers for one person; it is never cached or shared (0, sharedCache false)`,
    );
  }
  return problems;
}

function scopeProblems(scopes: unknown, at: string): string[] {
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes) || scopes.length === 0 || scopes.length > MAX_SCOPES) {
    return [`${at}: a list of 1 to ${MAX_SCOPES} scopes`];
  }
  const problems: string[] = [];
  scopes.forEach((s, i) => {
    if (typeof s !== "string" || !SCOPE_TOKEN.test(s)) {
      problems.push(`${at}.${i}: not an OAuth scope token (RFC 6749 §3.3)`);
    }
  });
  if (new Set(scopes).size !== scopes.length) problems.push(`${at}: a scope is listed twice`);
  return problems;
}
