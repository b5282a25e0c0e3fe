/**
 * When and how long to wait before trying a call again. Only the decision table's `retry`
 * rows are retried (and a network failure, whose outcome is unknown); `block` and
 * `escalate` never are. Every attempt carries the same idempotency key, so the fence charges
 * and applies a mutation at most once however often it is sent.
 */

/** How a client retries; every field is optional. */
export interface RetryOptions {
  /** Attempts in all, the first included; 1 turns retries off. Default 4. */
  attempts?: number;
  /** Backoff before the first retry, in ms; doubled per retry. Default 250. */
  baseMs?: number;
  /** The longest wait between two attempts, in ms (a longer `Retry-After` gives up). Default 10 000. */
  maxMs?: number;
  /** How to wait; tests pass their own. Default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the jitter; tests pass their own. Default `Math.random`. */
  random?: () => number;
}

/** The options with their defaults filled in. */
export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseMs: 250,
  maxMs: 10_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** RFC 9110 §10.2.3: `Retry-After` is delay-seconds or an HTTP-date; null if absent or bad. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (1 for the first): full jitter over an exponential
 * ceiling, never shorter than the server's `Retry-After`. Null when the server asks for a
 * wait longer than the policy allows: the caller gets the `retry` decision back instead.
 */
export function backoffMs(
  policy: RetryPolicy,
  retry: number,
  retryAfter: number | null,
): number | null {
  if (retryAfter !== null && retryAfter > policy.maxMs) return null;
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (retry - 1));
  const jittered = Math.floor(policy.random() * ceiling);
  return Math.max(jittered, retryAfter ?? 0);
}
