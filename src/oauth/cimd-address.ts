/**
 * Where a Client ID Metadata Document may be fetched from. The library fetches only HTTPS
 * URLs, without redirects, within 5 KB and 10 s, caching by Cache-Control for at most 7 days,
 * and `global_fetch_strictly_public` sends every fetch to the public internet. The fence also
 * refuses, before any fetch, a client id naming this machine or a private network by its
 * address or as `localhost`: such a document can only be an attempt to reach the fence's
 * own network (SSRF), never a client's public home. Local development is no exception: the
 * library fetches documents over HTTPS only, so a client on this machine registers by DCR.
 */

/** IPv4 ranges no public client lives in (RFC 1918, RFC 6598, loopback, link-local, "this"). */
const PRIVATE_V4: readonly [number, number][] = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0a80000, 16],
];

function v4(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (m === null) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((a, p) => a * 256 + p, 0);
}

/** Whether a host, as the URL parser writes it, names this machine or a private network. */
export function isPrivateHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const address = v4(name);
  if (address !== null) {
    return PRIVATE_V4.some(([base, bits]) => address >>> (32 - bits) === base >>> (32 - bits));
  }
  if (!name.startsWith("[")) return false;
  // IPv6: loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), v4-mapped.
  const v6 = name.slice(1, -1);
  return (
    v6 === "::1" ||
    v6 === "::" ||
    /^f[cd]/.test(v6) ||
    /^fe[89ab]/.test(v6) ||
    v6.startsWith("::ffff:")
  );
}

/**
 * Why a client id may not be fetched as a metadata document, or null. Only URL-shaped ids
 * are documents; a registered client's id is not a URL and passes.
 */
export function refusedClientId(clientId: string | null): string | null {
  if (clientId === null || !/^https?:/i.test(clientId)) return null;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "The client id is not a valid URL.";
  }
  if (url.protocol !== "https:") return "A client metadata document is fetched only over HTTPS.";
  if (isPrivateHost(url.hostname)) {
    return "A client metadata document is never fetched from a private or loopback address.";
  }
  return null;
}
