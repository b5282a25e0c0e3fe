/**
 * Where a Client ID Metadata Document may be fetched from. The library fetches only HTTPS
 * URLs, without redirects, within 5 KB and 10 s, caching by Cache-Control for at most 7 days,
 * and `global_fetch_strictly_public` sends every fetch to the public internet (so a public
 * name that resolves to a private address is not reached either). The fence also refuses,
 * before any fetch, a client id naming this machine, a private, shared, reserved or special
 * network by its address, or a local-only name: such a document can only be an attempt to
 * reach the fence's own network (SSRF), never a client's public home. Local development is
 * no exception: the library fetches documents over HTTPS only, so a client on this machine
 * registers by DCR.
 */

/**
 * IPv4 ranges no public client lives in (IANA special-purpose registry, RFC 6890): "this
 * network", RFC 1918, shared (RFC 6598), loopback, link-local, IETF protocol assignments
 * (192.0.0.0/24), the documentation nets, benchmarking (RFC 2544), multicast, and the reserved
 * 240.0.0.0/4 with the limited broadcast address in it.
 */
const PRIVATE_V4: readonly [number, number][] = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0000000, 24],
  [0xc0000200, 24],
  [0xc0a80000, 16],
  [0xc6120000, 15],
  [0xc6336400, 24],
  [0xcb007100, 24],
  [0xe0000000, 4],
  [0xf0000000, 4],
];

/**
 * IPv6 prefixes (as 16-bit groups and a length) no public client lives in: IPv4-compatible
 * and IPv4-mapped (which reach any IPv4 address, private ones included), NAT64 (RFC 6052,
 * RFC 8215), discard (RFC 6666), Teredo and 6to4 (which embed an IPv4 address),
 * documentation, unique local, link-local, the deprecated site-local fec0::/10, multicast.
 * The unspecified and loopback addresses are inside ::/96.
 */
const PRIVATE_V6: readonly [readonly number[], number][] = [
  [[0, 0, 0, 0, 0, 0], 96],
  [[0, 0, 0, 0, 0, 0xffff], 96],
  [[0x64, 0xff9b], 96],
  [[0x64, 0xff9b, 1], 48],
  [[0x100], 64],
  [[0x2001, 0], 32],
  [[0x2001, 0xdb8], 32],
  [[0x2002], 16],
  [[0xfc00], 7],
  [[0xfe80], 10],
  [[0xfec0], 10],
  [[0xff00], 8],
];

/** Names never public: `.localhost` (RFC 6761), `.local` (RFC 6762), `.internal`, `.home.arpa` (RFC 8375). */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];

function v4(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (m === null) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((a, p) => a * 256 + p, 0);
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (no brackets). */
function v6Groups(address: string): number[] | null {
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  // The URL parser writes an embedded IPv4 address as two hex groups; accept the dotted form too.
  const last = tail.length > 0 ? tail : head;
  const dotted = last.length > 0 ? v4(last[last.length - 1] ?? "") : null;
  if (dotted !== null) {
    last.splice(-1, 1, (dotted >>> 16).toString(16), (dotted & 0xffff).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  const numbers = groups.map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : NaN));
  return numbers.some(Number.isNaN) ? null : numbers;
}

function inV6Prefix(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 16 < bits; i++) {
    const width = Math.min(16, bits - i * 16);
    const mask = (0xffff << (16 - width)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Whether a host, as the URL parser writes it, names this machine or a non-public network. */
export function isPrivateHost(host: string): boolean {
  // A fully qualified name may end in a dot (`localhost.`); it names the same host.
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return true;
  const address = v4(name);
  if (address !== null) {
    return PRIVATE_V4.some(([base, bits]) => address >>> (32 - bits) === base >>> (32 - bits));
  }
  if (name.startsWith("[")) {
    const groups = v6Groups(name.slice(1, -1));
    // An address the parser wrote but this reader cannot: refuse rather than guess.
    if (groups === null) return true;
    return PRIVATE_V6.some(([prefix, bits]) => inV6Prefix(groups, prefix, bits));
  }
  // A single-label name resolves only through a local search domain, never publicly.
  return !name.includes(".");
}

const REFUSED_ADDRESS =
  "A client metadata document is never fetched from a private or loopback address.";

/**
 * Why a client id may not be fetched as a metadata document, or null. The library treats an
 * id as a document when the URL parser reads it as `https:` (which forgives leading spaces,
 * tabs and case), so this reads it the same way; a registered client's id is not a URL.
 */
export function refusedClientId(clientId: string | null | undefined): string | null {
  if (clientId === null || clientId === undefined) return null;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return null;
  }
  if (url.protocol === "http:") return "A client metadata document is fetched only over HTTPS.";
  if (url.protocol !== "https:") return null;
  return isPrivateHost(url.hostname) ? REFUSED_ADDRESS : null;
}

/** The first refusal among the client ids one request presents, or null. */
export function refusedClientIds(clientIds: readonly (string | undefined)[]): string | null {
  for (const id of clientIds) {
    const refused = refusedClientId(id);
    if (refused !== null) return refused;
  }
  return null;
}
