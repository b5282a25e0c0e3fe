/**
 * Pins enforced when a call is made: before an MCP tool's call is looked up in the cache or
 * sent, the fence knows that its server lists the tool as pinned. The scheduled drift check's
 * record is read first (KV); then this isolate's listing of the server, at most
 * `LISTING_TTL_MS` old, is compared with the pin's hash. A fresh listing costs no round trip;
 * a stale one is listed again with the headers and credentials of the call that needs it, so a
 * server cannot show one listing to the checker and another to callers. Calls that find it
 * stale together share one listing, made with the first one's headers.
 */
import type { McpUpstream } from "../core/contract.ts";
import type { GatedCall, GateFailure } from "../core/gate.ts";
import { refuse } from "../core/reasons.ts";
import { err, ok, type Result } from "../core/result.ts";
import {
  bearerHeader,
  type CallIdentity,
  callHeaders,
  type PrincipalToken,
} from "./call-identity.ts";
import { driftOf, listedHash } from "./drift.ts";

/** How long this isolate trusts a server's listing. */
export const LISTING_TTL_MS = 60_000;

/** A server's tools as listed: the hash of each tool's schema by its name on the server. */
interface Listing {
  /** When it was listed (ms since the epoch). */
  at: number;
  /** Hash of each listed tool's description and schemas (the pin's form). */
  hashes: ReadonlyMap<string, string>;
}

/** Who lists a server: the call's identity, and its principal's token for a call made as them. */
type Lister = CallIdentity & { bearer?: PrincipalToken | undefined };

/** Per server and tenant (and connection): what a server lists may depend on who asks. */
const listings = new Map<string, Promise<Listing | null>>();

/**
 * `call`, or its `upstream_drifted` refusal when its MCP tool is no longer listed as pinned.
 * A server that cannot be listed lets the call through: unknown is not drift, and the call
 * itself reports what failed. With `on_drift: "allow"` nothing is checked.
 */
export async function pinnedNow(
  call: GatedCall,
  env: Env,
  who: Lister & { onDrift: "block" | "allow" },
  now = Date.now(),
): Promise<Result<GatedCall, GateFailure>> {
  const { contract } = call;
  if (contract.upstream.kind !== "mcp" || who.onDrift === "allow") return ok(call);
  const upstream = contract.upstream;
  const recorded = await driftOf(env, contract.name);
  if (recorded !== null) {
    return drifted(
      call,
      `is ${recorded.status} since its contract was pinned (checked ${recorded.checked_at})`,
    );
  }
  const listing = await listingOf(upstream, env, who, now);
  if (listing === null) return ok(call);
  const seen = listing.hashes.get(upstream.tool);
  if (seen === upstream.pinned.sha256) return ok(call);
  const listed = new Date(listing.at).toISOString();
  return drifted(
    call,
    `is ${seen === undefined ? "gone" : "changed"} since its contract was pinned (listed ${listed})`,
  );
}

function drifted(call: GatedCall, what: string): Result<GatedCall, GateFailure> {
  const { contract, form, key } = call;
  const tool = (contract.upstream as McpUpstream).tool;
  const detail = `${contract.name}: the server's tool ${tool} ${what}; nothing was sent and no cached result was served. Re-import and review it, or set on_drift to allow.`;
  return err({ refusal: refuse("upstream_drifted", detail), tool: contract.name, form, key });
}

async function listingOf(
  upstream: McpUpstream,
  env: Env,
  who: Lister,
  now: number,
): Promise<Listing | null> {
  const connection = who.bearer?.connectionId ?? null;
  const server = JSON.stringify([upstream.endpoint, upstream.auth ?? null, who.tenant, connection]);
  // One listing of a server at a time: a call joins the one it finds, and only the first call
  // to find it stale lists again; the calls behind it join that listing.
  let held = listings.get(server);
  while (held !== undefined) {
    const cached = await held;
    // A listing that failed while this call waited on it reads as if this call had listed.
    if (cached === null || now - cached.at < LISTING_TTL_MS) return cached;
    const current = listings.get(server);
    if (current === held) break;
    held = current;
  }
  const listing = listNow(upstream, env, who, now);
  listings.set(server, listing);
  const listed = await listing;
  // A failed listing is not kept: the next call lists again.
  if (listed === null && listings.get(server) === listing) listings.delete(server);
  return listed;
}

async function listNow(
  upstream: McpUpstream,
  env: Env,
  who: Lister,
  now: number,
): Promise<Listing | null> {
  // Loaded here, not at startup (see execute.ts).
  const { listMcpTools } = await import("./mcp.ts");
  try {
    const headers = { ...callHeaders(who), ...bearerHeader(who.bearer) };
    const tools = await listMcpTools(upstream, env, headers);
    const hashes = new Map<string, string>();
    for (const t of tools) hashes.set(t.name, await listedHash(t));
    return { at: now, hashes };
  } catch {
    // Not listed, or a listing with no hash (a schema with no RFC 8785 form): unknown.
    return null;
  }
}
