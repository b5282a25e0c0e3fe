/** Largest call body accepted, in bytes (checked before and while reading). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Largest body of `PUT /v1/runs/{id}` (a handful of limits). */
export const MAX_LIMITS_BYTES = 8 * 1024;

/** Deepest nesting of arrays and objects accepted in a call. */
export const MAX_JSON_DEPTH = 32;

/** How much of a call's body the audit log keeps. */
export const AUDIT_PAYLOAD_CAP = 8 * 1024;

/** Extra time an idempotency key stays `in_flight` past the call's timeout. */
export const LEASE_MARGIN_MS = 5_000;

/** Default and largest page of the audit log. */
export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1_000;

/** Largest sum of header names and values accepted, in bytes (RFC 6585 §5 answers 431). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The CALL_LIMITER window in seconds, as set in wrangler.toml; sent as Retry-After. */
export const RATE_LIMIT_PERIOD_S = 60;
