/**
 * What the worker and a principal's PrincipalConnections object say to each other, and the
 * shapes the console and the API list. No member of a listed connection holds a token.
 */
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import type { ConnectionOwner } from "../core/connection-owner.ts";

/** Whose object it is: the tenant, the owner's id (its name's second half) and the owner. */
export interface OwnerRef {
  /** The tenant the principal belongs to. */
  tenant: string;
  /** `ownerIdOf(owner)` (src/core/connection-owner.ts). */
  ownerId: string;
  /** The key or person, as the console shows them. */
  owner: ConnectionOwner;
}

/** What a call made as the principal gets for its upstream. */
export type TokenAnswer =
  | {
      /** A token the upstream should accept: live, or just refreshed. */
      kind: "live";
      /** The access token, sent as `Authorization: Bearer`; it goes nowhere else. */
      token: string;
      /** The connection it came from, named in the call's audit entry. */
      connectionId: string;
      /** The upstream's RFC 9728 resource. */
      resource: string;
      /** The upstream's subject, when its token says it. */
      subject: string | null;
    }
  | {
      /** No live connection: never made, deleted, or its refresh was refused. */
      kind: "none";
    }
  | {
      /** A refresh that could not be made now (the authorization server did not answer). */
      kind: "unavailable";
      /** Why, for the refusal's detail. */
      detail: string;
    };

/** One connection as listed: no token, no client secret. */
export interface ConnectionView {
  /** The connection's id (`cn_` and 96 random bits as hex). */
  id: string;
  /** The MCP server's URL, as the contract's variable names it. */
  upstream: string;
  /** The upstream's RFC 9728 resource (the `resource` its tokens are bound to, RFC 8707). */
  resource: string;
  /** The authorization server that issued the tokens. */
  issuer: string;
  /** The scopes granted, space-separated, when the server said. */
  scope: string | null;
  /** The upstream's subject, when its token says it. */
  subject: string | null;
  /** Who it belongs to. */
  owner: ConnectionOwner;
  /** Their owner id. */
  owner_id: string;
  /** When it was made (ms since the epoch). */
  created_at: number;
  /** When a call last used it, or null. */
  last_used_at: number | null;
  /** When its access token was last refreshed, or null. */
  refreshed_at: number | null;
}

/** What the browser flow keeps between sending the person away and their coming back. */
export interface FlowSnapshot {
  /** The MCP server's URL. */
  upstream: string;
  /** The RFC 9728 resource the SDK chose, once discovery ran. */
  resource: string | null;
  /** The PKCE code verifier (RFC 7636). */
  verifier: string;
  /** The client id (and secret, when registered with one) at the authorization server. */
  client: OAuthClientInformationMixed;
  /** The metadata discovery found (RFC 9728, RFC 8414). */
  discovery: OAuthDiscoveryState;
  /** The scope asked for. */
  scope: string | null;
}

/** What a finished flow stores: the tokens, and what refreshing them needs. */
export interface Grant {
  /** The MCP server's URL. */
  upstream: string;
  /** The RFC 9728 resource. */
  resource: string;
  /** The client the tokens were issued to. */
  client: OAuthClientInformationMixed;
  /** The metadata discovery found. */
  discovery: OAuthDiscoveryState;
  /** The tokens the authorization server issued. */
  tokens: OAuthTokens;
  /** The upstream's subject, when the access token says it. */
  subject: string | null;
}
