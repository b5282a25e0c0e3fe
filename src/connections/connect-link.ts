/**
 * The connect link a refused call carries (`connect_url`): the fence's page where the person
 * (or the holder of the key) who made the call connects its upstream. The link holds who made
 * the call, for which tenant and upstream, and until when, sealed (src/core/sealed.ts) under
 * the console secret: nothing is stored when it is made, it cannot be altered or forged, and
 * the page checks that whoever signs in there is that principal. Its nonce is spent when the
 * page sends the person on (PrincipalConnections.begin), so it works once, for ten minutes.
 */
import type { ConnectionOwner } from "../core/connection-owner.ts";
import { type SealingContext, seal, unseal } from "../core/sealed.ts";

/** The connect page; the link is its `link` query parameter. */
export const CONNECT_PATH = "/console/connections/connect";

/** How long a connect link may be used. */
export const LINK_TTL_MS = 10 * 60_000;

/** What a connect link holds. */
export interface ConnectLink {
  /** The caller's tenant. */
  tenant: string;
  /** Who made the call: whoever signs in on the page must be them. */
  owner: ConnectionOwner;
  /** Their owner id. */
  ownerId: string;
  /** The MCP server's URL. */
  upstream: string;
  /** The tool that was called, for the page to name. */
  tool: string;
  /** The scope the contract asks for, or null. */
  scope: string | null;
  /** Random, spent once. */
  nonce: string;
  /** When the link stops working (ms since the epoch). */
  expiresAt: number;
}

function sealing(secret: string): SealingContext {
  return { label: "toolfence connect link v1\n", secret, boundTo: "connect-link" };
}

/** A new link's absolute URL on `origin`, valid LINK_TTL_MS from `now`. */
export async function connectUrl(
  secret: string,
  origin: string,
  link: Omit<ConnectLink, "nonce" | "expiresAt">,
  now = Date.now(),
): Promise<string> {
  const nonce = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const sealed = await seal(sealing(secret), { ...link, nonce, expiresAt: now + LINK_TTL_MS });
  return `${origin}${CONNECT_PATH}?link=${sealed}`;
}

/** Why a link does not open. */
export type LinkProblem = "invalid" | "expired";

/** The link `text` seals, or why not: not one the fence sealed, or past its time. */
export async function openLink(
  secret: string,
  text: string | undefined,
  now = Date.now(),
): Promise<ConnectLink | LinkProblem> {
  if (text === undefined || text.length > 4096) return "invalid";
  const link = (await unseal(sealing(secret), text)) as ConnectLink | null;
  if (link === null || typeof link.expiresAt !== "number") return "invalid";
  return link.expiresAt <= now ? "expired" : link;
}
