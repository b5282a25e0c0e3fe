/**
 * The approval webhook's signature: HMAC-SHA256 (RFC 2104) with the deployment's secret over
 * `<timestamp>.<body>`, the body's exact bytes, sent as `Toolfence-Signature: t=<unix s>,v1=<hex>`.
 * Signing the timestamp with the body lets a receiver refuse an old delivery replayed later.
 */

/** The header that carries the signature. */
export const SIGNATURE_HEADER = "Toolfence-Signature";

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

/** The header value for `body` sent at `unixSeconds`. */
export async function signature(
  secret: string,
  body: string,
  unixSeconds: number,
): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    encoder.encode(`${unixSeconds}.${body}`),
  );
  return `t=${unixSeconds},v1=${hex(mac)}`;
}

/**
 * Whether `header` signs `body` with `secret` and is at most `toleranceS` seconds old at
 * `nowS`; the comparison is WebCrypto's own verify, so it takes constant time.
 */
export async function verifySignature(
  secret: string,
  body: string,
  header: string,
  nowS: number,
  toleranceS = 300,
): Promise<boolean> {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (match === null) return false;
  const t = Number(match[1]);
  if (Math.abs(nowS - t) > toleranceS) return false;
  const mac = new Uint8Array(
    (match[2] ?? "").match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? [],
  );
  return crypto.subtle.verify("HMAC", await hmacKey(secret), mac, encoder.encode(`${t}.${body}`));
}
