/**
 * Whether a request reached a worker running under local development (`wrangler dev`), the
 * only place the development key is honoured. Three facts must all hold, and none of them
 * can be produced by a client of a deployed worker:
 *
 * - no `CF-Ray` header: Cloudflare's edge adds one to every request it hands a Worker, and a
 *   client cannot remove it; `wrangler dev` sends none;
 * - `CF-Connecting-IP` is a loopback address: the edge overwrites it with the client's real
 *   address, which is never loopback; `wrangler dev` sets it from the socket, and `npm run dev`
 *   listens on 127.0.0.1 only, so no other machine can connect at all;
 * - the URL's host is `localhost`, `127.0.0.1` or `[::1]` as the URL parser reads it: it
 *   writes other spellings of those addresses (`127.1`, `2130706433`, `LOCALHOST`) in that
 *   form, so they pass too, and every one of them names this machine.
 */

/** Host names a loopback client uses, as the URL parser writes them. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A loopback address as a socket reports it: 127.0.0.0/8 in dotted-quad form, or ::1. */
const LOOPBACK_ADDRESS =
  /^(127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)|::1)$/;

/** Whether the request crossed Cloudflare's network: it then carries `CF-Ray`. */
export function isDeployedRequest(headers: Headers): boolean {
  return headers.has("CF-Ray");
}

/** Whether the request can only have come from this machine to a local `wrangler dev`. */
export function isLocalDevelopment(headers: Headers, url: string): boolean {
  if (isDeployedRequest(headers)) return false;
  const address = headers.get("CF-Connecting-IP") ?? "";
  return LOOPBACK_ADDRESS.test(address) && LOOPBACK_HOSTS.has(new URL(url).hostname);
}
