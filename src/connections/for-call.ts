/**
 * A call to a tool whose upstream is called as the principal (src/core/principal-auth.ts),
 * before anything is charged: the caller's connection to that upstream gives the token the call
 * sends, refreshed if need be; without a live one the call is refused
 * `upstream_authorization_required` with a connect link. Only such a tool ever comes here: a
 * call to any other pays nothing for connections.
 */
import { ownerIdOf, ownerOf } from "../core/connection-owner.ts";
import type { AuditPrincipal, UpstreamIdentity } from "../core/principal.ts";
import type { PrincipalTool } from "../core/principal-auth.ts";
import { type Refusal, refuse } from "../core/reasons.ts";
import { connectUrl, LINK_TTL_MS } from "./connect-link.ts";
import { connectionsOf } from "./objects.ts";

/** The token a call sends, and how to say the upstream refused it. */
export interface Bearer {
  /** The access token, for `Authorization: Bearer`; it goes nowhere else. */
  token: string;
  /** The connection it came from (names listings of the server per connection). */
  connectionId: string;
  /** Tell the connection the upstream refused it (HTTP 401): refresh before the next call. */
  rejected: () => void;
}

/** What a call as the principal goes on with, or its refusal. */
export type PrincipalCall =
  | {
      ok: true;
      /** The token to send. */
      bearer: Bearer;
      /** What the call's audit entries name as the upstream identity. */
      identity: UpstreamIdentity;
    }
  | {
      ok: false;
      /** Why not. */
      refusal: Refusal;
      /** Where the caller connects, for `upstream_authorization_required`. */
      connectUrl?: string;
    };

/** Who made the call and where the fence is, as the edge knows them. */
export interface Caller {
  /** The caller's tenant. */
  tenant: string;
  /** Who the audit names as the caller. */
  principal: AuditPrincipal | undefined;
  /** The fence's public origin (PUBLIC_URL, or the loopback origin locally), or null. */
  origin: string | null;
  /** The console secret connect links are sealed with (configured.ts checked it is set). */
  secret: string;
  /** Work to finish after the answer. */
  defer: (work: Promise<unknown>) => void;
}

/** The caller's connection for `contract`'s upstream, or the call's refusal. */
export async function principalCall(
  env: Env,
  contract: PrincipalTool,
  caller: Caller,
): Promise<PrincipalCall> {
  const owner = ownerOf(caller.principal);
  const urlVar = "urlVar" in contract.upstream.endpoint ? contract.upstream.endpoint.urlVar : "";
  const upstream = (env as unknown as Record<string, unknown>)[urlVar];
  if (owner === null || typeof upstream !== "string") {
    const detail = `${contract.name} is called as the principal who makes the call, and this call has none.`;
    return { ok: false, refusal: refuse("upstream_authorization_required", detail) };
  }
  const ownerId = await ownerIdOf(owner);
  const objects = connectionsOf(env, caller.tenant, ownerId);
  const answer = await objects.token(upstream);
  if (answer.kind === "live") {
    const { token, connectionId, resource, subject } = answer;
    const rejected = () => caller.defer(objects.rejected(upstream, connectionId));
    const identity = {
      resource,
      connection_id: connectionId,
      ...(subject === null ? {} : { subject }),
    };
    return { ok: true, bearer: { token, connectionId, rejected }, identity };
  }
  const host = new URL(upstream).host;
  if (answer.kind === "unavailable") {
    const detail = `${contract.name}: your connection to ${host} could not be refreshed now (${answer.detail}); nothing ran. Retry the same call shortly.`;
    return { ok: false, refusal: refuse("upstream_unavailable", detail) };
  }
  if (caller.origin === null) {
    const detail = `${contract.name} is called as you at ${host}, and this deployment has no PUBLIC_URL for the page where you would connect it.`;
    return { ok: false, refusal: refuse("upstream_not_configured", detail) };
  }
  const scopes = contract.upstream.auth.scopes;
  const link = {
    tenant: caller.tenant,
    owner,
    ownerId,
    upstream,
    tool: contract.name,
    scope: scopes === undefined ? null : scopes.join(" "),
  };
  const url = await connectUrl(caller.secret, caller.origin, link);
  const minutes = LINK_TTL_MS / 60_000;
  const detail = `${contract.name} is called as you at ${host}, which you have not connected (or whose connection ended). Open connect_url (once, within ${minutes} minutes), sign in as the caller and allow ${host}; then make the same call again. Nothing ran and nothing was charged.`;
  return {
    ok: false,
    refusal: refuse("upstream_authorization_required", detail),
    connectUrl: url,
  };
}
