/**
 * Idempotency keys from an intent. One key is one intent: the same intent always yields the
 * same key, so a retried or re-planned call that means the same thing is applied once.
 */

/** The fence's key charset and length (docs/api.md): keys travel upstream as a header. */
const KEY_MAX = 128;

/** Characters kept as they are; `~` is the escape, so distinct intents never share a key. */
const PLAIN = /^[A-Za-z0-9._-]$/;

function escapePart(part: string | number): string {
  let out = "";
  for (const ch of String(part)) {
    if (PLAIN.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of new TextEncoder().encode(ch)) {
      out += `~${byte.toString(16).padStart(2, "0")}`;
    }
  }
  return out;
}

/**
 * A stable idempotency key for an intent, e.g. `intentKey("create", ticketId)`: readable,
 * injective (parts are escaped, then joined by `:`), within the fence's key charset.
 * Throws a RangeError when the intent is too long to be a key: shorten the parts.
 */
export function intentKey(action: string, ...parts: Array<string | number>): string {
  const key = ["intent", action, ...parts].map(escapePart).join(":");
  if (key.length > KEY_MAX) {
    throw new RangeError(
      `intentKey: ${key.length} characters; the fence accepts at most ${KEY_MAX}`,
    );
  }
  return key;
}
