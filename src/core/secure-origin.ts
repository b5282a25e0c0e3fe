/**
 * Where the fence will send a person's browser or credentials: HTTPS, or plain HTTP to this
 * machine only (a provider or server run locally for development, RFC 8252 §8.3's loopback).
 */

/** Whether `url` is HTTPS, or HTTP to a loopback name. */
export function trustedOrigin(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol === "https:") return true;
    return u.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
  } catch {
    return false;
  }
}
