/**
 * An API key's connections go with the key. `npm run keys -- revoke` deletes the key's record
 * from `API_KEYS`; the worker's scheduled run (every 30 minutes, wrangler.toml) then finds, in
 * the tenants' directories, every connection owned by a key that no longer has a record, and
 * deletes it in its owner's object, which revokes its tokens at the upstream. Until then the
 * connection cannot be used: every call with the revoked key is refused at authentication.
 */
import { recordName } from "../core/keys.ts";
import { allEntries } from "./directory.ts";
import { connectionsOf } from "./objects.ts";

/** Delete the connections of revoked keys; how many were deleted. */
export async function sweepRevokedKeys(env: Env): Promise<number> {
  const owners = new Map<string, { tenant: string; ownerId: string; digest: string }>();
  for await (const entry of allEntries(env)) {
    const digest = /^key\.([0-9a-f]{64})$/.exec(entry.ownerId)?.[1];
    if (digest !== undefined) owners.set(`${entry.tenant}/${entry.ownerId}`, { ...entry, digest });
  }
  let deleted = 0;
  for (const { tenant, ownerId, digest } of owners.values()) {
    if ((await env.API_KEYS.get(recordName(digest), "text")) !== null) continue;
    deleted += await connectionsOf(env, tenant, ownerId).removeAll();
  }
  return deleted;
}
