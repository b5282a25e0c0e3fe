/**
 * The tenant's directory of connections, so operators can list them (each principal's object
 * knows only its own): one KV record per connection in `OAUTH_KV`, written and deleted by the
 * owner's object (PrincipalConnections) beside its own row, holding no token.
 *
 * | key | value |
 * |---|---|
 * | `tf-conn:<tenant>:<owner id>:<connection id>` | {@link ConnectionView} as JSON, e.g. `{"id":"cn_3f…","upstream":"https://mcp.example.com/mcp",…}` |
 *
 * KV is eventually consistent and has no compare-and-set: the directory only lists, and every
 * act on a connection goes to its owner's object, which holds the truth. A connection deleted a
 * moment ago may still be listed for up to a minute elsewhere; acting on it again changes
 * nothing.
 */
import { OWNER_ID } from "../core/connection-owner.ts";
import type { ConnectionView } from "./protocol.ts";

const PREFIX = "tf-conn:";

/** The directory key of one connection. */
export function directoryKey(tenant: string, ownerId: string, connectionId: string): string {
  return `${PREFIX}${tenant}:${ownerId}:${connectionId}`;
}

/** Record `view` in its tenant's directory. */
export function listInDirectory(env: Env, tenant: string, view: ConnectionView): Promise<void> {
  return env.OAUTH_KV.put(directoryKey(tenant, view.owner_id, view.id), JSON.stringify(view));
}

/** Take a connection out of its tenant's directory. */
export function dropFromDirectory(
  env: Env,
  tenant: string,
  ownerId: string,
  connectionId: string,
): Promise<void> {
  return env.OAUTH_KV.delete(directoryKey(tenant, ownerId, connectionId));
}

/** A directory entry's tenant and owner, from its key. */
export interface DirectoryEntry {
  /** The tenant. */
  tenant: string;
  /** The owner's id. */
  ownerId: string;
  /** The connection's id. */
  connectionId: string;
}

/** The tenant, owner and connection a directory key names, or null for a key of another form. */
export function entryOf(key: string): DirectoryEntry | null {
  if (!key.startsWith(PREFIX)) return null;
  const [tenant = "", ownerId = "", connectionId = "", ...rest] = key
    .slice(PREFIX.length)
    .split(":");
  if (rest.length > 0 || !OWNER_ID.test(ownerId) || !/^cn_[0-9a-f]{24}$/.test(connectionId)) {
    return null;
  }
  return { tenant, ownerId, connectionId };
}

/**
 * The owners of the tenant's connections, as the directory lists them (a page of at most
 * `limit` connections): each owner's object then lists its own, as they are now.
 */
export async function tenantOwners(env: Env, tenant: string, limit = 1000): Promise<string[]> {
  const listed = await env.OAUTH_KV.list({ prefix: `${PREFIX}${tenant}:`, limit });
  const owners = new Set<string>();
  for (const k of listed.keys) {
    const entry = entryOf(k.name);
    if (entry?.tenant === tenant) owners.add(entry.ownerId);
  }
  return [...owners];
}

/** Every directory entry of every tenant, a page at a time (the revoked-keys sweep). */
export async function* allEntries(env: Env): AsyncGenerator<DirectoryEntry> {
  let cursor: string | undefined;
  do {
    const page = await env.OAUTH_KV.list({ prefix: PREFIX, ...(cursor ? { cursor } : {}) });
    for (const k of page.keys) {
      const entry = entryOf(k.name);
      if (entry !== null) yield entry;
    }
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
}
