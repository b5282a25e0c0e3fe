/**
 * The fence as an MCP OAuth client of an upstream, through the official SDK's helpers
 * (`@modelcontextprotocol/client`): `auth()` runs the browser flow's two legs (RFC 9728 and
 * RFC 8414 discovery with the OpenID fallback, the fence's Client ID Metadata Document where
 * the server takes one, else dynamic registration (RFC 7591), PKCE S256, the `resource`
 * parameter (RFC 8707), the RFC 9207 `iss` check on the way back), and `refreshAuthorization`
 * refreshes without the person. Discovery runs first, by the SDK's `discoverOAuthServerInfo`,
 * so an OpenID provider's document keeps the revocation endpoint the SDK's schema drops.
 * Every request is bounded in time and bytes (oauth-requests.ts).
 * Its importers load this module on first use, since the SDK builds its schemas when evaluated
 * (docs/mcp.md, "Cost"), and import its functions by name, so the bundle keeps only those.
 */
import {
  auth,
  discoverOAuthServerInfo,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  OAuthError,
  type OAuthTokens,
  refreshAuthorization,
  validateAuthorizationResponseIssuer,
} from "@modelcontextprotocol/client";
import * as v from "valibot";
import { err, ok, type Result } from "../core/result.ts";
import { trustedOrigin } from "../core/secure-origin.ts";
import { CALLBACK_PATH, clientDocument, clientMetadata } from "./client-document.ts";
import { oauthFetch, subjectOf } from "./oauth-requests.ts";
import type { FlowSnapshot, Grant } from "./protocol.ts";

/**
 * The SDK's view of one browser flow, kept in memory: what `auth()` saves (client, discovery,
 * verifier, resource) becomes the flow's snapshot, stored sealed between the two legs; tokens
 * are never read back from it, so `auth()` never refreshes here, it authorizes.
 */
class FlowProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  saved: OAuthTokens | undefined;
  readonly clientMetadataUrl: string | undefined;
  readonly snapshot: Partial<FlowSnapshot> & Pick<FlowSnapshot, "upstream" | "scope">;
  private readonly origin: string;
  private readonly stateValue: string | undefined;
  constructor(origin: string, snapshot: FlowProvider["snapshot"], state?: string) {
    this.origin = origin;
    this.snapshot = snapshot;
    this.stateValue = state;
    const document = clientDocument(origin);
    this.clientMetadataUrl = document === null ? undefined : String(document.client_id);
  }
  get redirectUrl() {
    return `${this.origin}${CALLBACK_PATH}`;
  }
  get clientMetadata() {
    return clientMetadata(this.origin);
  }
  state() {
    return this.stateValue ?? "";
  }
  clientInformation() {
    return this.snapshot.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.snapshot.client = info;
  }
  tokens() {
    return undefined;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.snapshot.verifier = verifier;
  }
  codeVerifier() {
    return this.snapshot.verifier ?? "";
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.snapshot.discovery = state;
  }
  discoveryState() {
    return this.snapshot.discovery;
  }
  saveResourceUrl(resource: string) {
    this.snapshot.resource = resource;
  }
}

/**
 * The RFC 8414 member an OpenID provider's document may hold (OpenID Connect Discovery §3 lets
 * it add any) which the SDK's OpenID schema drops and the fence reads: the revocation endpoint
 * (RFC 7009) that deleting a connection revokes it at.
 */
const OAuthMembers = v.object({ revocation_endpoint: v.pipe(v.string(), v.url()) });

/**
 * The upstream's RFC 9728 and authorization-server metadata, by the SDK's discovery (RFC 8414,
 * then OpenID Connect Discovery). Metadata found at an OpenID location keeps the member above,
 * read from the same answer, so such a server's connections are revoked there as a server
 * publishing RFC 8414 metadata has them revoked.
 */
async function discover(upstream: string): Promise<OAuthDiscoveryState> {
  let openid: unknown;
  const recording: FetchLike = async (input, init) => {
    const res = await oauthFetch(input, init);
    const url = URL.parse(String(input instanceof Request ? input.url : input));
    if (res.ok && url?.pathname.endsWith("/.well-known/openid-configuration") === true) {
      openid = await res
        .clone()
        .json()
        .catch(() => undefined);
    }
    return res;
  };
  const info = await discoverOAuthServerInfo(upstream, { fetchFn: recording });
  const members = v.safeParse(OAuthMembers, openid);
  const metadata = info.authorizationServerMetadata;
  if (metadata === undefined || !members.success) return info;
  return { ...info, authorizationServerMetadata: { ...members.output, ...metadata } };
}

/** Where to send the person, and what the second leg needs. */
export interface FlowStart {
  /** The authorization request (code, PKCE S256, state, resource, scope). */
  authorizationUrl: string;
  /** The snapshot the callback resumes from. */
  snapshot: FlowSnapshot;
}

/**
 * The first leg: discover the upstream's authorization server, identify the fence to it (its
 * metadata document, or registration), and build the authorization request with `state`.
 */
export async function beginFlow(
  origin: string,
  upstream: string,
  scope: string | null,
  state: string,
): Promise<Result<FlowStart, string>> {
  const provider = new FlowProvider(origin, { upstream, scope, resource: null }, state);
  try {
    // Discovered first, so auth() goes on from the whole of the server's metadata.
    provider.snapshot.discovery = await discover(upstream);
    const options = { serverUrl: upstream, fetchFn: oauthFetch };
    const result = await auth(provider, scope === null ? options : { ...options, scope });
    if (result !== "REDIRECT") return err("the authorization server asked for no person");
  } catch (e) {
    return err(describe(e));
  }
  const { authorizationUrl } = provider;
  const { verifier, client, discovery, resource } = provider.snapshot;
  if (authorizationUrl === null || verifier === undefined || client === undefined) {
    return err("the authorization request could not be built");
  }
  if (discovery === undefined) return err("the authorization server's metadata was not found");
  // The person's browser goes there with the PKCE challenge: HTTPS, or this machine.
  if (!trustedOrigin(authorizationUrl.href)) {
    return err("the authorization endpoint is neither HTTPS nor on this machine");
  }
  const snapshot = { upstream, scope, verifier, client, discovery, resource: resource ?? null };
  return ok({ authorizationUrl: authorizationUrl.href, snapshot });
}

/**
 * The second leg: the person came back to `callback`. Its `iss` is checked against the
 * recorded issuer (RFC 9207), the code redeemed with the flow's verifier and resource.
 */
export async function finishFlow(
  origin: string,
  snapshot: FlowSnapshot,
  callback: URL,
): Promise<Result<Grant, string>> {
  const params = callback.searchParams;
  const code = params.get("code");
  const iss = params.get("iss") ?? undefined;
  const metadata = snapshot.discovery.authorizationServerMetadata;
  if (code === null) {
    try {
      // An error answer is the server's only when its `iss` is (RFC 9207 §2.4).
      validateAuthorizationResponseIssuer({
        iss,
        expectedIssuer: metadata?.issuer,
        issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true,
      });
    } catch (e) {
      return err(describe(e));
    }
    const error = params.get("error");
    return err(
      error === null ? "the answer holds no code" : `the server answered ${bounded(error)}`,
    );
  }
  const provider = new FlowProvider(origin, { ...snapshot });
  try {
    const options = { serverUrl: snapshot.upstream, authorizationCode: code, fetchFn: oauthFetch };
    await auth(provider, iss === undefined ? options : { ...options, iss });
  } catch (e) {
    return err(describe(e));
  }
  const tokens = provider.saved;
  const client = provider.snapshot.client;
  if (tokens === undefined || client === undefined) return err("no tokens were issued");
  return ok({
    upstream: snapshot.upstream,
    resource: snapshot.resource ?? snapshot.upstream,
    client,
    discovery: snapshot.discovery,
    tokens,
    subject: subjectOf(tokens.access_token),
  });
}

/** A refresh's outcome: new tokens, or whether the connection is dead (`invalid_grant`). */
export type Refreshed =
  | { ok: true; tokens: OAuthTokens }
  | { ok: false; dead: boolean; detail: string };

/** The OAuth errors after which a connection's refresh token can never work again. */
const DEAD = new Set(["invalid_grant", "invalid_client", "unauthorized_client"]);

/** Refresh without the person (RFC 6749 §6), for the same resource; rotation is the server's. */
export async function refreshTokens(grant: {
  discovery: OAuthDiscoveryState;
  client: OAuthClientInformationMixed;
  resource: string;
  refreshToken: string;
}): Promise<Refreshed> {
  const { discovery, client, resource, refreshToken } = grant;
  try {
    const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
      metadata: discovery.authorizationServerMetadata,
      clientInformation: client,
      refreshToken,
      resource: new URL(resource),
      fetchFn: oauthFetch,
    });
    return { ok: true, tokens };
  } catch (e) {
    const dead = e instanceof OAuthError && DEAD.has(e.code);
    return { ok: false, dead, detail: describe(e) };
  }
}

/** An error of the SDK or the network in words, bounded, for a page and a refusal's detail. */
function describe(e: unknown): string {
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return bounded(text);
}

function bounded(text: string): string {
  return text.length <= 300 ? text : `${text.slice(0, 300)}…`;
}
