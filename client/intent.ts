/**
 * The key of a mutation proposed through a framework adapter: the same run, tool and
 * arguments give the same key in this process, so a model that repeats a mutation gets it
 * replayed, never applied twice (the rule the fence's MCP endpoint follows too). The key is an
 * HMAC under a random secret of this process: the fence keeps keys in its audit, and a plain
 * hash of the arguments would let anyone who guesses a sensitive argument confirm it there.
 */

/** JSON with object keys sorted: RFC 8785's form for the plain JSON values arguments are. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

let secret: Promise<CryptoKey> | undefined;

/** This process's secret, made on first use and never sent anywhere. */
function processSecret(): Promise<CryptoKey> {
  if (secret === undefined) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const hmac = { name: "HMAC", hash: "SHA-256" };
    secret = crypto.subtle.importKey("raw", bytes, hmac, false, ["sign"]);
  }
  return secret;
}

/** The idempotency key of proposing `tool` with `args` in run `runId`. */
export async function callKey(runId: string, tool: string, args: unknown): Promise<string> {
  const text = JSON.stringify([runId, tool, canonicalJson(args)]);
  const mac = await crypto.subtle.sign(
    "HMAC",
    await processSecret(),
    new TextEncoder().encode(text),
  );
  const hex = [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `intent:${hex}`;
}
